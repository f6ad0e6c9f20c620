/*
 * SPDX-License-Identifier: Apache-2.0
 *
 * The partition the arenas are placed in: with CONFIG_MICRO_RELAY_USER_PARTITION the generator puts each
 * arena in the section data_smem_micro_relay_partition_bss (CONFIG_MICRO_RELAY_ARENA_SECTION), which is
 * what K_APP_BMEM(micro_relay_partition) would give it.
 */
#include <micro_relay_partition.h>

K_APPMEM_PARTITION_DEFINE(micro_relay_partition);
