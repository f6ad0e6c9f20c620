/*
 * SPDX-License-Identifier: Apache-2.0
 *
 * The memory partition of the models' arenas (CONFIG_MICRO_RELAY_USER_PARTITION): add it to a memory
 * domain, and that domain's user-mode threads can run the models.
 *
 *     k_mem_domain_add_partition(&k_mem_domain_default, &micro_relay_partition);
 */
#ifndef MICRO_RELAY_PARTITION_H
#define MICRO_RELAY_PARTITION_H

#include <zephyr/app_memory/app_memdomain.h>

extern struct k_mem_partition micro_relay_partition;

#endif
