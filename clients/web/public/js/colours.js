// The colour of each kind of body, so that what moves, what is driven and what deforms can
// be told apart at a glance (and by the end-to-end test's pixel checks).
export const COLOURS = {
  background: 0x1d2127,
  ground: 0x59616b,
  dynamic: 0x4f8fdc,   // blue
  asleep: 0x35577e,    // a dynamic body asleep: the blue dimmed
  kinematic: 0x3fbf6f, // green: drag these
  static: 0x9aa3ad,    // grey
  rod: 0xe39b2f,       // orange
  soft: 0xd9485f,      // red
  strand: 0xf2e15c,    // yellow
  // The body under the pointer: a warm glow added to a lit surface, white for a line.
  highlightEmissive: 0x5a4010,
  highlightLine: 0xffffff,
};

export function rigidColour(kind) {
  if (kind === 'BODY_KIND_KINEMATIC') return COLOURS.kinematic;
  if (kind === 'BODY_KIND_STATIC') return COLOURS.static;
  return COLOURS.dynamic;
}
