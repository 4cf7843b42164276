# Benchmark fixture: many RTSP cameras from one process, each mount point looping the same pre-encoded H.264 file.
"""Run with the system python (python3-gi):

    /usr/bin/python3 rtsp_multi_camera.py --port N --mounts M --file PATH [--fps 25]
        [--prefix /cam] [--watch-stdin]

Serves rtsp://127.0.0.1:PORT/cam0 ... /cam{M-1} (no authentication). Every mount
point is its own shared media, i.e. its own pipeline started by its first client,
so M cameras behave like M independent cameras (their keyframes are not aligned),
but they share one Python interpreter and one RTSP server instead of M processes.
The pipeline is the one of recorder/test/fixtures/rtsp_camera.py --source file:
multifilesrc loops an Annex-B H.264 file (SPS/PPS before every IDR, no B-frames),
a pad probe restamps PTS = DTS = n / fps so timestamps stay monotonic across
loops, clocksync paces it at real time.

Binds 127.0.0.1 only (--port 0 picks a free port). Prints one line
``READY <port>`` on stdout once listening. Exits 0 on SIGTERM/SIGINT (and on
stdin EOF with --watch-stdin), 3 if the port is in use, 2 on bad arguments.
"""

import argparse
import os
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstRtspServer", "1.0")
from gi.repository import Gst, GstRtspServer  # noqa: E402

# The server scaffolding (bind, READY, signals, --watch-stdin) is shared with the test fixtures.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "recorder", "test", "fixtures"))
sys.dont_write_bytecode = True  # no __pycache__ next to the fixtures
from rtsp_looped_file import looped_file_launch, restamp_media  # noqa: E402
from rtsp_serve import serve  # noqa: E402


def parse_args(argv):
    p = argparse.ArgumentParser(description="many-camera RTSP benchmark fixture")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--mounts", type=int, required=True)
    p.add_argument("--first", type=int, default=0, help="index of the first mount point")
    p.add_argument("--prefix", default="/cam")
    p.add_argument("--file", required=True)
    p.add_argument("--fps", type=int, default=25)
    p.add_argument("--watch-stdin", action="store_true")
    args = p.parse_args(argv)
    if not args.prefix.startswith("/"):
        args.prefix = "/" + args.prefix
    if not os.path.isfile(args.file):
        p.error("no such file: %s" % args.file)
    if args.mounts <= 0 or args.fps <= 0 or args.first < 0:
        p.error("--mounts and --fps must be positive, --first not negative")
    if not 0 <= args.port <= 65535:
        p.error("--port out of range")
    return args


class Factory(GstRtspServer.RTSPMediaFactory):
    def __init__(self, path, fps):
        super().__init__()
        self.fps = fps
        self.set_launch(looped_file_launch(path, fps))
        self.set_shared(True)
        self.connect("media-configure", self.on_media_configure)

    def on_media_configure(self, _factory, media):
        restamp_media(media, self.fps)


def main(argv):
    args = parse_args(argv)
    Gst.init(None)

    server = GstRtspServer.RTSPServer()
    mounts = server.get_mount_points()
    for i in range(args.first, args.first + args.mounts):
        mounts.add_factory("%s%d" % (args.prefix, i), Factory(args.file, args.fps))
    return serve(server, "rtsp_multi_camera", args.port, args.watch_stdin)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
