'use strict';
// The web gateway taking its frames from the NATS tier: nats-server, a ligatured publishing
// the showcase world (--nats_url, --nats_worlds), a viewer gateway (ligature-gateway) fed by
// it, and the web gateway with --frames pointing there. A viewer's socket gets the scene
// from ligatured and the frames through the viewer gateway: they stop when that gateway is
// stopped, while ligatured goes on.

const { spawn } = require('child_process');
const net = require('net');
const path = require('path');
const test = require('node:test');
const assert = require('node:assert/strict');
const { WEB_DIR, startLigatured, startGateway, startProcess, stop, openViewerSocket } =
  require('./processes');

const SCENE = path.join(WEB_DIR, 'scenes', 'showcase.textproto');
const WORLD = 'worlds/showcase';

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

function which(name) {
  for (const dir of (process.env.PATH || '').split(':')) {
    const candidate = path.join(dir, name);
    try {
      require('fs').accessSync(candidate, require('fs').constants.X_OK);
      return candidate;
    } catch (e) { /* not here */ }
  }
  return null;
}

test('the web gateway takes its frames from a viewer gateway', async (t) => {
  const nats = which('nats-server');
  const viewerGateway = process.env.LIGATURE_GATEWAY;
  if (!nats || !viewerGateway) {
    const why = 'needs nats-server on PATH and LIGATURE_GATEWAY';
    if (process.env.LIGATURE_REQUIRE_ALL) assert.fail(why);
    t.skip(why);
    return;
  }
  const port = await freePort();
  const broker = await startProcess([nats, '-a', '127.0.0.1', '-p', String(port)],
                                    /Server is ready/);
  t.after(() => stop(broker));
  const url = `nats://127.0.0.1:${port}`;
  const server = await startLigatured(SCENE, [`--nats_url=${url}`, '--nats_worlds=showcase']);
  t.after(() => stop(server));
  const frames = await startProcess([viewerGateway, '--listen=127.0.0.1:0', `--nats_url=${url}`],
                                    /serving on \S+ \(port (\d+)\)/);
  t.after(() => stop(frames));
  const web = await startGateway(server.address, ['--frames', `127.0.0.1:${frames.match[1]}`]);
  t.after(() => stop(web));
  const viewer = await openViewerSocket(web.url);
  t.after(() => viewer.ws.close());

  // The viewer gateway serves the world once a frame of it came through the broker.
  let first;
  for (let attempt = 0; !first; attempt++) {
    const scene = viewer.waitFor((m) => m.type === 'scene', 'the scene');
    const outcome = viewer.waitFor((m) => m.type === 'frame' || (m.type === 'error' && m.op === 'watch'),
                                   'a frame or an error', 10000);
    viewer.send({ op: 'watch', world: WORLD });
    await scene;
    const m = await outcome;
    if (m.type === 'frame') first = m;
    else if (attempt > 50) assert.fail(`no frames through the viewer gateway: ${m.message}`);
    else await new Promise((r) => setTimeout(r, 100));
  }
  const later = await viewer.waitFor((m) => m.type === 'frame' && m.simTime > first.simTime + 0.5,
                                     'half a second of frames', 10000);
  assert.ok(later.tick > first.tick);

  // Without the viewer gateway the frames stop (the stream ends with an error), though
  // ligatured is still up.
  const ended = viewer.waitFor((m) => (m.type === 'error' && m.op === 'watch') ||
                                      (m.type === 'stream-end' && m.stream === 'watch'),
                               'the end of the watch', 10000);
  await stop(frames);
  await ended;
  assert.equal(server.child.exitCode, null);
});
