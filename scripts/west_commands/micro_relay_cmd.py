# SPDX-License-Identifier: Apache-2.0

"""`west micro-relay`: Micro Relay's command line from a west workspace.

    west micro-relay compile model.tflite -o out/ --name kws
    west micro-relay inspect model.tflite
    west micro-relay run model.tflite --input x.npy
    west micro-relay budget [-d BUILD_DIR] [--ram 64K --flash 256K]
    west micro-relay qemu [-d BUILD_DIR] [--dry-run] [-- QEMU_ARGS...]
    west micro-relay device run|profile|compare [-d BUILD_DIR] [--port DEV] [--json]

It runs this module's own generator (no `pip install` of Micro Relay needed, only its dependencies:
`west packages pip --install`). `budget` without --elf checks the build folder given with -d/--build-dir,
or ./build: its zephyr/zephyr.elf, zephyr/.config and the CONFIG_MICRO_RELAY_BUDGET_YAML file.
`device` drives a build of samples/model_server (./build or -d): the model and its options come from the build; a
native_sim build or a board QEMU emulates is started, a real board must be flashed first (`west flash`; this
never flashes) and its serial port given with --port.
`qemu` runs a build's zephyr.elf in qemu-system-arm on the boards whose Zephyr board files name only Arm's FVP
(mps2/an385, mps2/an386, mps2/an500, mps2/an521), for example, for a Cortex-M4:

    west build -b mps2/an386 samples/keyword_spotting && west micro-relay qemu
    # = qemu-system-arm -machine mps2-an386 -cpu cortex-m4 -nographic -vga none -net none -serial mon:stdio
    #                   -kernel build/zephyr/zephyr.elf   (Ctrl-A X quits)
"""

import argparse
import sys
from pathlib import Path

from west.commands import WestCommand

SCRIPTS = Path(__file__).resolve().parents[1]


class MicroRelayCommand(WestCommand):

    def __init__(self):
        super().__init__(
            "micro-relay",
            # Keep in sync with scripts/west-commands.yml.
            "compile, inspect, run and budget-check neural network models with Micro Relay; run images in QEMU; "
            "drive a model server build",
            __doc__,
            accepts_unknown_args=True,
        )

    def do_add_parser(self, parser_adder):
        parser = parser_adder.add_parser(self.name, help=self.help, description=self.description,
                                         formatter_class=argparse.RawDescriptionHelpFormatter, add_help=False)
        # Everything after the command, -h included, goes to Micro Relay's own parser.
        parser.add_argument("command", nargs="?", help="compile, inspect, run, budget, device or qemu")
        return parser

    def do_run(self, args, unknown):
        if not args.command:
            self.parser.print_help()
            return
        argv = [args.command, *unknown]
        if args.command == "budget":
            argv = self._budget_argv(argv)
        elif args.command == "device":
            argv = self._device_argv(argv)
        if str(SCRIPTS) not in sys.path:
            sys.path.insert(0, str(SCRIPTS))
        if args.command == "qemu":
            from micro_relay.emulate.qemu import main as qemu_main

            code = qemu_main(unknown)
            if code:
                sys.exit(code)
            return
        from micro_relay.cli import main

        code = main(argv)
        if code:
            sys.exit(code)

    @staticmethod
    def _budget_argv(argv):
        """`-d DIR` as in `west build`; with neither --elf nor a build folder, ./build."""
        out = []
        rest = iter(argv)
        for arg in rest:
            if arg in ("-d", "--build-dir"):
                out += ["--build-dir", next(rest, "")]
            elif arg.startswith("-d") and len(arg) > 2:
                out += ["--build-dir", arg[2:]]
            else:
                out.append(arg)
        if not any(a == "--elf" or a.startswith("--elf=") or a == "--build-dir" or a.startswith("--build-dir=")
                   for a in out):
            out += ["--build-dir", "build"]
        return out

    @staticmethod
    def _device_argv(argv):
        """run, profile and compare default to ./build, as `west build` does, when it holds a model server and
        no -d names another folder."""
        if len(argv) < 2 or argv[1] not in ("run", "profile", "compare"):
            return argv
        named = any(a in ("-d", "--build-dir") or a.startswith(("-d", "--build-dir=")) for a in argv[2:])
        if named or not (Path("build") / "model_server" / "model_server.json").is_file():
            return argv
        return [*argv, "--build-dir", "build"]
