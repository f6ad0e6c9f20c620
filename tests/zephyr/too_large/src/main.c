/* SPDX-License-Identifier: Apache-2.0 */
#include <zephyr/kernel.h>

#include "wide.h"

int main(void)
{
	printk("wide: %d\n", wide_invoke());
	return 0;
}
