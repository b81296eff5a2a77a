#!/usr/bin/env python3
"""Streams a world's frames and prints one line per frame until Ctrl-C, --frames or
--seconds.

    watch_world.py paddle --rate 10 --frames 20 [--bodies ball-1,crate] [--server ADDR]
"""

import argparse
import sys

import ligature


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("world", help="world id or worlds/{id}")
    parser.add_argument("--server", default="127.0.0.1:50051", help="host:port")
    parser.add_argument("--rate", type=float, default=10.0, help="frames per second at most")
    parser.add_argument("--frames", type=int, default=0, help="stop after this many (0: no limit)")
    parser.add_argument("--seconds", type=float, default=None, help="stop after this long")
    parser.add_argument("--bodies", default="", help="comma-separated body ids (default all)")
    args = parser.parse_args()
    bodies = [b for b in args.bodies.split(",") if b]
    count = 0
    try:
        with ligature.connect(args.server) as client, client.watch(
                args.world, rate_hz=args.rate, bodies=bodies, duration=args.seconds) as frames:
            for frame in frames:
                positions = " ".join(
                    f"{b.id}=({b.pose.position.x:.3f},{b.pose.position.y:.3f},"
                    f"{b.pose.position.z:.3f})" for b in frame.bodies)
                print(f"tick {frame.tick} t={frame.sim_time:.3f}s "
                      f"step={frame.step_ms:.3f}ms {positions}", flush=True)
                count += 1
                if args.frames and count >= args.frames:
                    break
    except KeyboardInterrupt:
        pass
    except ligature.LigatureError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(f"{count} frames", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
