#!/bin/sh
# A haptic session that asks for datagrams where every UDP packet is dropped goes on over
# its stream. Runs in a network namespace of its own (unshare --net; --map-root-user when
# not root) whose loopback drops all UDP by an nftables rule; ligatured and
# ligature-haptic-sim both run inside it, and nothing leaves it.
# usage: haptic_udp_blocked.sh LIGATURED LIGATURE_HAPTIC_SIM
set -eu
if [ -z "${LIGATURE_IN_LOSS_RIG:-}" ]; then
  map=""
  [ "$(id -u)" -eq 0 ] || map="--map-root-user"
  exec env LIGATURE_IN_LOSS_RIG=1 unshare --net $map sh "$0" "$@"
fi
ligatured="$1"
sim="$2"
work=$(mktemp -d)
trap 'kill $server 2>/dev/null || true; rm -rf "$work"' EXIT

ip link set lo up
nft -f - <<'RULES'
table inet block {
  chain out {
    type filter hook output priority 0; policy accept;
    meta l4proto udp drop
  }
}
RULES

"$ligatured" --listen 127.0.0.1:0 --scene default 2> "$work/server.log" &
server=$!
port=""
for _ in $(seq 100); do
  port=$(sed -n 's/.*serving on .* (port \([0-9]*\)).*/\1/p' "$work/server.log")
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || { echo "ligatured did not start:"; cat "$work/server.log"; exit 1; }
grep -q "haptic datagrams on UDP port" "$work/server.log" || {
  echo "ligatured offers no datagram port"; exit 1; }

# One second at 1 kHz: the datagrams go nowhere, the session turns to its stream after
# 100 ms of unanswered poses and every later pose is answered there.
"$sim" --server "127.0.0.1:$port" --world default --tool ball-0 --script hold --seconds 1 \
  --datagrams > "$work/sim.out"
cat "$work/sim.out"
grep -q "transport: stream (fell back)" "$work/sim.out" || {
  echo "FAIL: the session did not fall back to the stream"; exit 1; }
lost=$(sed -n 's/.*forces lost \([0-9]*\),.*/\1/p' "$work/sim.out")
[ -n "$lost" ] && [ "$lost" -lt 500 ] || {
  echo "FAIL: $lost of 1000 poses got no force of their own"; exit 1; }
echo "ok: fell back to the stream; $lost of 1000 poses answered late or not at all"
