"""Running a compiled model on a device from the host (`micro-relay device`): the protocol's frames
(protocol.py), byte channels (transport.py), the model's identity (identity.py), the commands (commands.py),
the emulated board (qemu.py), a session that runs, profiles or compares (session.py), its text (report.py)
and the command line (cli.py). The device side, in C, is server/."""
