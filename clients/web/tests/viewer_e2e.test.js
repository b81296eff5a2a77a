'use strict';
// End to end: a real ligatured with the showcase scene (one body of every kind), the
// gateway, and the page in headless Chromium driven by playwright-core. Checks that the world
// list appears, frames arrive, every body kind is drawn where the world says it is (pixels
// of its colour at its projected place on a screenshot), that the body the server's ray
// cast finds under the mouse is highlighted and named, that dragging the kinematic handle
// moves it and the rope hanging from it, and that pause, step and resume act on the world.
// Exits 77 (skipped) when no Chromium is installed.
//
// With LIGATURE_WEB_SECURE=1 the same test runs with security on: ligatured serves mutual
// TLS with a token file (certificates from tests/security/make_certs.sh), the gateway
// connects with TLS, its client certificate and a token of its own, serves HTTPS and admits
// only browsers whose token ligatured accepts; the page passes the owner's token. Then a
// browser without a token or with a forged one is refused, and a viewer's token watches but
// may not pause.

const fs = require('fs');
const path = require('path');
const test = require('node:test');
const assert = require('node:assert/strict');
const os = require('os');
const { execFileSync } = require('child_process');
const WebSocket = require('ws');
const { WEB_DIR, startLigatured, startGateway, stop } = require('./processes');
const { requireChromium, launchChromium, waitFor, hover } = require('./page');

const SECURE = process.env.LIGATURE_WEB_SECURE === '1';
const MAKE_CERTS = path.join(WEB_DIR, '..', '..', 'tests', 'security', 'make_certs.sh');

requireChromium();

const SCENE = path.join(WEB_DIR, 'scenes', 'showcase.textproto');

// Colour tests per kind (see public/js/colours.js), robust to lighting and shadows: which
// channels dominate is what survives shading.
const LOOKS = {
  dynamic: ([r, g, b]) => b > r + 40 && b > g + 10,
  kinematic: ([r, g, b]) => g > r + 40 && g > b + 25,
  soft: ([r, g, b]) => r > g + 60 && r > b + 30,
  rod: ([r, g, b]) => r > b + 70 && r > g + 25,
  strand: ([r, g, b]) => r > b + 50 && g > b + 50 && Math.abs(r - g) < 45,
};

const text = (page, selector) => page.locator(selector).textContent();

// Certificates and tokens in a fresh directory; the flags of ligatured and of the gateway.
function secureSetup() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ligature-web-secure-'));
  execFileSync('/bin/bash', [MAKE_CERTS, dir], { stdio: 'inherit' });
  const file = (name) => path.join(dir, name);
  fs.writeFileSync(file('tokens'), 'alice-t owner showcase\nbob-t viewer showcase\ngateway-t viewer *\n');
  fs.writeFileSync(file('gateway-token'), 'gateway-t\n');
  return {
    dir,
    file,
    server: [`--tls_cert=${file('server.pem')}`, `--tls_key=${file('server.key')}`,
             `--tls_client_ca=${file('ca.pem')}`, `--token_file=${file('tokens')}`],
    gateway: ['--tls', '--tls-ca', file('ca.pem'), '--tls-cert', file('client.pem'),
              '--tls-key', file('client.key'), '--token-file', file('gateway-token'),
              '--require-token', '--https-cert', file('server.pem'), '--https-key', file('server.key')],
  };
}

// The HTTP status with which the gateway answers a WebSocket to `url` (101 when admitted).
function upgradeStatus(url, ca) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { ca });
    ws.on('open', () => { ws.terminate(); resolve(101); });
    ws.on('unexpected-response', (req, res) => { resolve(res.statusCode); req.destroy(); });
    ws.on('error', reject);
  });
}

test('the viewer shows a live world, every body kind, drags, pauses and steps', async (t) => {
  const security = SECURE ? secureSetup() : null;
  if (security) t.after(() => fs.rmSync(security.dir, { recursive: true, force: true }));
  const server = await startLigatured(SCENE, security ? security.server : []);
  t.after(() => stop(server));
  const gateway = await startGateway(server.address, security ? security.gateway : []);
  t.after(() => stop(gateway));
  if (security) assert.match(gateway.url, /^https:/);
  const browser = await launchChromium();
  t.after(() => browser.close());
  // The page's certificate is the test CA's, which Chromium does not know.
  const pageOptions = { viewport: { width: 1000, height: 650 }, ignoreHTTPSErrors: SECURE };
  const page = await browser.newPage(pageOptions);
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(SECURE ? `${gateway.url}#token=alice-t` : gateway.url);

  if (security) {
    await t.test('browsers without an accepted token are refused', async () => {
      const ws = gateway.url.replace(/^https/, 'wss') + 'ws';
      const ca = fs.readFileSync(security.file('ca.pem'));
      assert.equal(await upgradeStatus(ws, ca), 401);
      assert.equal(await upgradeStatus(`${ws}?token=forged-t`, ca), 401);
      assert.equal(await upgradeStatus(`${ws}?token=${encodeURIComponent('two words')}`, ca), 401);
      assert.equal(await upgradeStatus(`${ws}?token=bob-t`, ca), 101);
    });

    await t.test("a viewer's token watches but may not pause", async () => {
      const viewer = await browser.newPage(pageOptions);
      t.after(() => viewer.close());
      await viewer.goto(`${gateway.url}#token=bob-t`);
      await viewer.locator('#world-list li[data-world="worlds/showcase"]').waitFor({ timeout: 8000 });
      await waitFor(viewer, () => Number(document.getElementById('frame-count').textContent) >= 3);
      await viewer.click('#pause');
      await viewer.locator('#error', { hasText: 'PERMISSION_DENIED' }).waitFor({ timeout: 8000 });
      assert.match(await text(viewer, '#error'), /owner role on world showcase/);
    });
  }

  await t.test('the world list appears', async () => {
    await page.locator('#world-list li[data-world="worlds/showcase"]').waitFor({ timeout: 8000 });
    assert.match(await text(page, '#world-list li.selected .name'), /showcase/);
  });

  await t.test('frames arrive and every body kind has a view', async () => {
    await waitFor(page, () => Number(document.getElementById('frame-count').textContent) >= 5);
    const first = Number(await text(page, '#frame-count'));
    const firstTick = Number(await text(page, '#tick'));
    await waitFor(page, (n) => Number(document.getElementById('frame-count').textContent) > n + 5, first);
    assert.ok(Number(await text(page, '#tick')) > firstTick, 'ticks advance');
    const stats = await page.evaluate(() => window.ligatureViewer.stats());
    // ground, ball, crate, log, stool, handle
    assert.deepEqual([stats.rigid, stats.rod, stats.soft, stats.strand], [6, 1, 1, 1]);
    assert.ok(stats.softTriangles > 0, 'the soft body has a surface');
    // three.js's WebXR button is on the page (it says whether the browser offers VR).
    assert.equal(await page.locator('#VRButton').count(), 1);
    assert.equal(stats.strandSegments, 7, 'one line per strand segment');
    assert.deepEqual(pageErrors, []);
  });

  await t.test('the screenshot shows each body where the world has it', async () => {
    await page.waitForTimeout(1200);  // the cube settles on the ground
    const png = await page.locator('#view canvas').screenshot();
    fs.writeFileSync(path.join(process.env.TEST_OUTPUT_DIR || '/tmp', 'ligature-web-viewer.png'), png);
    const probes = { ball: ['dynamic', 6], crate: ['dynamic', 6], handle: ['kinematic', 4],
                     jelly: ['soft', 6], rope: ['rod', 5], tuft: ['strand', 7] };
    const result = await page.evaluate(async ({ b64, probes }) => {
      const image = new Image();
      image.src = `data:image/png;base64,${b64}`;
      await image.decode();
      const canvas = document.createElement('canvas');
      canvas.width = image.width; canvas.height = image.height;
      const ctx = canvas.getContext('2d');
      ctx.drawImage(image, 0, 0);
      const pixels = ctx.getImageData(0, 0, image.width, image.height).data;
      const colours = new Set();
      for (let i = 0; i < pixels.length; i += 4) {
        colours.add((pixels[i] >> 3) << 10 | (pixels[i + 1] >> 3) << 5 | (pixels[i + 2] >> 3));
      }
      const rect = document.querySelector('#view canvas').getBoundingClientRect();
      const windows = {};
      for (const [id, [, radius]] of Object.entries(probes)) {
        const at = window.ligatureViewer.bodyOnPage(id);
        const cx = Math.round((at.x - rect.left) * image.width / rect.width);
        const cy = Math.round((at.y - rect.top) * image.height / rect.height);
        const window_ = [];
        for (let y = cy - radius; y <= cy + radius; y++) {
          for (let x = cx - radius; x <= cx + radius; x++) {
            if (x < 0 || y < 0 || x >= image.width || y >= image.height) continue;
            const i = 4 * (y * image.width + x);
            window_.push([pixels[i], pixels[i + 1], pixels[i + 2]]);
          }
        }
        windows[id] = { at: [cx, cy], pixels: window_ };
      }
      const corner = [];
      for (let y = 0; y < 20; y++) {
        for (let x = 0; x < 20; x++) {
          const i = 4 * (y * image.width + x);
          corner.push([pixels[i], pixels[i + 1], pixels[i + 2]]);
        }
      }
      return { distinct: colours.size, windows, corner };
    }, { b64: png.toString('base64'), probes });

    assert.ok(result.distinct > 100, `a rendered scene, not a blank one (${result.distinct} colours)`);
    for (const [id, [look]] of Object.entries(probes)) {
      const { at, pixels } = result.windows[id];
      const matching = pixels.filter(LOOKS[look]).length;
      assert.ok(matching >= 2, `${id} (${look}) drawn at ${at}: ${matching} matching pixels`);
    }
    // The top left corner shows the background, none of the bodies' colours (so the probes
    // above cannot pass on any pixel at all).
    for (const [look, matches] of Object.entries(LOOKS)) {
      assert.equal(result.corner.filter(matches).length, 0, `no ${look} pixels in the corner`);
    }
  });

  await t.test("the pointer highlights the body the server's ray cast hits", async () => {
    const highlighted = () => page.evaluate(() => window.ligatureViewer.viewer.highlighted);
    // The tint of a body's (first) material: the highlight's emissive colour, or 0.
    const glow = (id) => page.evaluate((body) => {
      let hex = null;
      window.ligatureViewer.viewer.views.get(body).object.traverse((o) => {
        if (hex === null && o.material && o.material.emissive) hex = o.material.emissive.getHex();
      });
      return hex;
    }, id);
    const at = await page.evaluate(() => window.ligatureViewer.bodyOnPage('ball'));
    await page.mouse.move(at.x, at.y);
    await waitFor(page, () => window.ligatureViewer.viewer.highlighted === 'ball');
    assert.notEqual(await glow('ball'), 0);
    // The ray through the ball's centre enters it a radius (0.15 m) short of the centre. The
    // ball and camera are read once the answer is shown; 3 cm allows the ball's motion between
    // the frame the server answered from and the one the page shows on a loaded machine.
    const shown = await text(page, '#pointer-hit');
    const ball = await page.evaluate(() => ({
      centre: window.ligatureViewer.bodyPosition('ball'),
      camera: window.ligatureViewer.viewer.camera.position.toArray(),
    }));
    const [, body, distance] = /^(\S+), ([\d.]+) m$/.exec(shown) || [];
    assert.equal(body, 'ball', shown);
    const expected = Math.hypot(...ball.centre.map((c, i) => c - ball.camera[i])) - 0.15;
    assert.ok(Math.abs(Number(distance) - expected) < 0.03, `${shown}, expected ${expected.toFixed(3)} m`);
    // Onto the crate: the highlight moves with the pointer.
    const crate = await page.evaluate(() => window.ligatureViewer.bodyOnPage('crate'));
    await page.mouse.move(crate.x, crate.y);
    await waitFor(page, () => window.ligatureViewer.viewer.highlighted === 'crate');
    assert.equal(await glow('ball'), 0, 'the ball is no longer tinted');
    assert.match(await text(page, '#pointer-hit'), /^crate, /);
    // The top left corner shows the sky: nothing is hit, nothing tinted.
    const view = await page.locator('#view canvas').boundingBox();
    await page.mouse.move(view.x + 5, view.y + 5);
    await waitFor(page, () => document.getElementById('pointer-hit').textContent === '-');
    assert.equal(await highlighted(), null);
    assert.equal(await glow('crate'), 0);
    assert.equal(await text(page, '#error'), '');
  });

  await t.test('dragging the kinematic handle moves it, and the rope follows', async () => {
    const before = await page.evaluate(() => ({
      handle: window.ligatureViewer.bodyPosition('handle'),
      rope: window.ligatureViewer.bodyPosition('rope'),
    }));
    // The server's answer for the hovered pointer decides the press at once.
    const at = await hover(page, 'handle');
    await page.mouse.down();
    for (let i = 1; i <= 10; i++) {
      await page.mouse.move(at.x + 15 * i, at.y);
      await page.waitForTimeout(30);
    }
    await page.mouse.up();
    assert.equal(await page.evaluate(() => window.ligatureViewer.drag.lastPress), 'answered');
    await waitFor(page, (x0) => window.ligatureViewer.bodyPosition('handle')[0] > x0 + 0.2,
                  before.handle[0]);
    await waitFor(page, (x0) => window.ligatureViewer.bodyPosition('rope')[0] > x0 + 0.05,
                  before.rope[0]);
    const after = await page.evaluate(() => window.ligatureViewer.bodyPosition('handle'));
    assert.ok(Math.abs(after[1] - before.handle[1]) < 0.1, 'a horizontal drag stays level');
  });

  await t.test('a press the server has not answered for waits for its answer: a drag on the ' +
               'handle, an orbit elsewhere', async () => {
    const forget = () => page.evaluate(() => { window.ligatureViewer.pointer.latest = null; });
    const at = await hover(page, 'handle');
    const x0 = await page.evaluate(() => window.ligatureViewer.bodyPosition('handle')[0]);
    await forget();
    await page.mouse.down();
    for (let i = 1; i <= 10; i++) {
      await page.mouse.move(at.x - 15 * i, at.y);
      await page.waitForTimeout(30);
    }
    await page.mouse.up();
    assert.equal(await page.evaluate(() => window.ligatureViewer.drag.lastPress), 'asked');
    await waitFor(page, (start) => window.ligatureViewer.bodyPosition('handle')[0] < start - 0.2,
                  x0);
    // Over the sky: the press goes to the orbit controls once the server says it hit nothing.
    const view = await page.locator('#view canvas').boundingBox();
    const camera = () => page.evaluate(() => window.ligatureViewer.viewer.camera.position.toArray());
    const before = await camera();
    await page.mouse.move(view.x + 40, view.y + 40);
    await waitFor(page, () => document.getElementById('pointer-hit').textContent === '-');
    await forget();
    await page.mouse.down();
    for (let i = 1; i <= 5; i++) {
      await page.mouse.move(view.x + 40 + 20 * i, view.y + 40);
      await page.waitForTimeout(30);
    }
    await page.mouse.up();
    assert.equal(await page.evaluate(() => window.ligatureViewer.drag.lastPress), 'asked');
    const after = await camera();
    assert.ok(Math.hypot(...after.map((c, i) => c - before[i])) > 0.05,
              `the camera orbited: ${before} -> ${after}`);
  });

  await t.test('dragging a dynamic body grabs it with a spring drive, and letting go drops it',
               async () => {
    const y0 = await page.evaluate(() => window.ligatureViewer.bodyPosition('crate')[1]);
    const at = await hover(page, 'crate');
    await page.mouse.down();
    for (let i = 1; i <= 12; i++) {
      await page.mouse.move(at.x, at.y - 10 * i);
      await page.waitForTimeout(30);
    }
    await waitFor(page, (start) => window.ligatureViewer.bodyPosition('crate')[1] > start + 0.1,
                  y0);
    await page.mouse.up();
    await waitFor(page, (start) => window.ligatureViewer.bodyPosition('crate')[1] < start + 0.02,
                  y0);
  });

  await t.test('a soft body whose topology changes gets a new surface', async () => {
    // A cut's frame as the gateway sends it: a new topology version with its triangles.
    const counts = await page.evaluate(() => {
      const view = window.ligatureViewer.viewer.views.get('jelly');
      const before = view.triangles;
      const v = [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1];
      view.update({ soft: { v, topology: 1000, t: [0, 1, 2, 0, 1, 3] } });
      const cut = [view.triangles, view.geometry.index.count,
                   view.geometry.getAttribute('position').count];
      const again = view.update({ soft: { v, topology: 1000 } });  // same topology, no triangles
      return { before, cut, kept: view.triangles, again };
    });
    assert.ok(counts.before > 2);
    assert.deepEqual(counts.cut, [2, 6, 4]);
    assert.equal(counts.kept, 2);
    assert.equal(counts.again, null);
    // The world's next frame has another topology (the real one) and no triangles, since the
    // gateway sent them already: the page asks for them again and gets its surface back.
    await waitFor(page, (n) => window.ligatureViewer.viewer.views.get('jelly').triangles === n,
                  counts.before);
  });

  await t.test('pause stops the world, step advances it by one tick, resume runs it', async () => {
    await page.click('#pause');
    await page.locator('#pause', { hasText: 'Resume' }).waitFor({ timeout: 5000 });
    await page.waitForTimeout(300);  // frames already on their way
    const paused = Number(await text(page, '#tick'));
    await page.waitForTimeout(400);
    assert.equal(Number(await text(page, '#tick')), paused, 'a paused world does not advance');
    await page.click('#step');
    await waitFor(page, (n) => Number(document.getElementById('tick').textContent) === n + 1, paused);
    await page.click('#pause');
    await waitFor(page, (n) => Number(document.getElementById('tick').textContent) > n + 5, paused + 1);
    assert.equal(await text(page, '#error'), '');
    assert.deepEqual(pageErrors, []);
  });
});
