#!/usr/bin/env python3
"""Drives a kinematic body with device poses (the Interact stream): the body circles
about its start position, tilting as it goes, while the frames coming back are printed.

    drive_body.py paddle paddle --radius 0.3 --seconds 3 [--hz 60] [--server ADDR]
"""

import argparse
import math
import sys
import threading
import time

import ligature


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("world", help="world id or worlds/{id}")
    parser.add_argument("body", help="id of a kinematic body")
    parser.add_argument("--server", default="127.0.0.1:50051", help="host:port")
    parser.add_argument("--radius", type=float, default=0.3, help="circle radius, m")
    parser.add_argument("--period", type=float, default=2.0, help="seconds per turn")
    parser.add_argument("--seconds", type=float, default=3.0, help="how long to drive")
    parser.add_argument("--hz", type=float, default=60.0, help="device poses per second")
    args = parser.parse_args()
    try:
        with ligature.connect(args.server) as client:
            start = next(b for b in client.export_scene(args.world).bodies if b.id == args.body)
            c = start.pose.position
            with client.interact(args.world, rate_hz=10, bodies=[args.body]) as session:
                # Frames are read on their own thread while this one sends poses.
                printer = threading.Thread(target=print_frames, args=(session, args.body),
                                           daemon=True)
                printer.start()
                t0 = time.monotonic()
                while (t := time.monotonic() - t0) < args.seconds:
                    angle = 2 * math.pi * t / args.period
                    tilt = 0.2 * math.sin(angle)  # rad about x
                    session.drive(args.body,
                                  (c.x + args.radius * math.cos(angle), c.y,
                                   c.z + args.radius * math.sin(angle)),
                                  (math.sin(tilt / 2), 0.0, 0.0, math.cos(tilt / 2)))
                    time.sleep(1.0 / args.hz)
            printer.join(timeout=5)
    except ligature.LigatureError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


def print_frames(session, body):
    """Prints the driven body's pose from each frame until the session ends."""
    try:
        for frame in session:
            p = ligature.body_state(frame, body).pose.position
            print(f"tick {frame.tick}: {body} at ({p.x:.3f}, {p.y:.3f}, {p.z:.3f})", flush=True)
    except ligature.LigatureError as error:
        print(f"error: {error}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
