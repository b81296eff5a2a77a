#!/usr/bin/env python3
"""Creates a world from a scene file (.textproto/.txtpb/.pbtxt or .json) and prints it.

    create_world.py paddle.json --id paddle [--server 127.0.0.1:50051] [--replace]
"""

import argparse
import sys

import ligature


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scene_file", help="scene file: .textproto/.txtpb/.pbtxt or .json")
    parser.add_argument("--id", default="", help="world id (default: chosen by the server)")
    parser.add_argument("--server", default="127.0.0.1:50051", help="host:port")
    parser.add_argument("--replace", action="store_true",
                        help="delete a world with the same id first")
    args = parser.parse_args()
    try:
        with ligature.connect(args.server) as client:
            if args.replace and args.id:
                try:
                    client.delete_world(args.id)
                except ligature.LigatureError as error:
                    if error.code.name != "NOT_FOUND":
                        raise
            world = client.create_world(args.id, scene_file=args.scene_file)
            print(f"created {world.name}: {world.body_count} bodies, "
                  f"{world.constraint_count} constraints, {world.settings.rate_hz:g} Hz, "
                  f"{'paused' if world.settings.paused else 'running'}")
            for body in client.export_scene(world).bodies:
                p = body.pose.position
                print(f"  {body.id}: ({p.x:.3f}, {p.y:.3f}, {p.z:.3f})")
    except ligature.LigatureError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
