"""Run a Zephyr build's image in QEMU where Zephyr's own `west build -t run` cannot (qemu.py)."""
