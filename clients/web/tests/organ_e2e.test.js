'use strict';
// End to end in the browser: a real ligatured with the built-in organ scene (a corotational
// organ of 5184 tetrahedra on its tray at 100 Hz, a kinematic probe and a kinematic scalpel),
// the gateway, and the page in headless Chromium driven by playwright-core. The probe is
// dragged with the mouse down into the organ's top and let go, so it stays pressed there;
// then the scalpel is drawn across the top 1 cm deep by the pose requests a drag sends (the
// blade is too thin to pick reliably with a mouse). Checks that the page draws the organ,
// that the probe dents its surface, that the stroke cuts (the organ's surface in the page
// takes the cut's new topology and gains faces) and that the world goes on ticking. Saves a
// screenshot after the cut and prints how fast the world ran against the wall clock.
// Exits 77 (skipped) when no Chromium is installed.

const fs = require('fs');
const path = require('path');
const test = require('node:test');
const assert = require('node:assert/strict');
const { WEB_DIR, startLigatured, startGateway, stop } = require('./processes');
const { requireChromium, launchChromium, waitFor, hover } = require('./page');

requireChromium();

const SCENE = path.join(WEB_DIR, '..', '..', 'server', 'scenes', 'organ.textproto');
const PROBE_RADIUS = 0.01;  // m, the scene's probe sphere
const BLADE_TIP = 0.02;     // m, the scalpel's tip below its centre

// The organ's drawn vertices (world coordinates), from its view in the page.
const organVertices = (page) => page.evaluate(() => {
  const position = window.ligatureViewer.viewer.views.get('organ').geometry.getAttribute('position');
  const out = [];
  for (let i = 0; i < position.count; i++) {
    out.push([position.getX(i), position.getY(i), position.getZ(i)]);
  }
  return out;
});

const tick = async (page) => Number(await page.locator('#tick').textContent());

test('the organ is pressed by the probe and cut by the scalpel in the viewer', async (t) => {
  const server = await startLigatured(SCENE);
  t.after(() => stop(server));
  const gateway = await startGateway(server.address);
  t.after(() => stop(gateway));
  const browser = await launchChromium();
  t.after(() => browser.close());
  const page = await browser.newPage({ viewport: { width: 1000, height: 650 } });
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(gateway.url);

  await t.test('the page draws the organ, its tray, the probe and the scalpel', async () => {
    await page.locator('#world-list li[data-world="worlds/showcase"]').waitFor({ timeout: 8000 });
    await waitFor(page, () => Number(document.getElementById('frame-count').textContent) >= 5);
    const stats = await page.evaluate(() => window.ligatureViewer.stats());
    assert.equal(stats.soft, 1);
    assert.ok(stats.softTriangles > 0, 'the organ has a surface');
    assert.equal(stats.rigid, 4, 'ground, tray, probe, scalpel');
  });

  // Half a second of simulated time: the organ settles onto the tray.
  await waitFor(page, () => Number(document.getElementById('tick').textContent) >= 50, null, 30000);
  const top = Math.max(...(await organVertices(page)).map((v) => v[1]));

  // The highest point of the organ's surface within `radius` of (x, z), horizontally.
  const highestNear = async (x, z, radius) => Math.max(...(await organVertices(page))
    .filter((v) => Math.hypot(v[0] - x, v[2] - z) < radius).map((v) => v[1]));

  let probe;
  await t.test('the probe dragged down into the organ dents it and stays there', async () => {
    const at = await hover(page, 'probe');
    await page.mouse.down();
    // Down the screen a pixel at a time until the sphere's centre is 4 mm below the top.
    for (let i = 1; i <= 400; i++) {
      await page.mouse.move(at.x, at.y + i);
      await page.waitForTimeout(20);
      const y = await page.evaluate(() => window.ligatureViewer.bodyPosition('probe')[1]);
      if (y < top - 0.004) break;
    }
    await page.mouse.up();
    await page.waitForTimeout(500);
    probe = await page.evaluate(() => window.ligatureViewer.bodyPosition('probe'));
    assert.ok(probe[1] < top - 0.004 && probe[1] > top - 0.01,
              `the probe's centre at ${probe[1].toFixed(4)} m, the organ's top at ${top.toFixed(4)} m`);
    assert.ok(Math.hypot(probe[0], probe[2]) < 0.07, `the probe over the organ: ${probe}`);
    // The surface around the sphere is pushed down below the top it had, and stays below the
    // sphere's top (the sphere did not pass under it).
    const around = await highestNear(probe[0], probe[2], 2 * PROBE_RADIUS);
    assert.ok(around < top - 0.002, `the surface around the probe at ${around.toFixed(4)} m`);
    assert.ok(around < probe[1] + PROBE_RADIUS, 'the surface stays below the sphere\'s top');
  });

  await t.test('the scalpel drawn across the top cuts the organ', async () => {
    const before = await page.evaluate(() => {
      const view = window.ligatureViewer.viewer.views.get('organ');
      return { topology: view.topology, triangles: view.triangles };
    });
    // Strokes 1 cm deep, as a drag sends them (a pose each display frame), the first 6.5 cm
    // from the probe: a stroke whose path misses the tissue's cutting attempt is drawn again
    // a centimetre further on, as a user would, up to three times.
    const depth = top - 0.01;
    const cut = () => page.evaluate(
      (t0) => window.ligatureViewer.viewer.views.get('organ').topology > t0, before.topology);
    let strokes = 0;
    while (strokes < 3 && !(await cut())) {
      const away = 0.065 + 0.01 * strokes++;
      const z = probe[2] > 0 ? probe[2] - away : probe[2] + away;
      const pose = (x, tipY) => page.evaluate(
        (p) => window.ligatureViewer.drag.send({ op: 'pose', body: 'scalpel', position: p }),
        [x, tipY + BLADE_TIP, z]);
      const segments = [[-0.06, top + 0.03, -0.06, depth, 10], [-0.06, depth, 0.06, depth, 60],
                        [0.06, depth, 0.06, top + 0.03, 10]];
      for (const [x0, y0, x1, y1, n] of segments) {
        for (let i = 1; i <= n; i++) {
          await pose(x0 + (x1 - x0) * i / n, y0 + (y1 - y0) * i / n);
          await page.waitForTimeout(1000 / 60);
        }
      }
      // The cut's surface reaches the page within a few frames.
      await page.waitForTimeout(1000);
    }
    assert.ok(await cut(), `${strokes} strokes left the organ in one piece`);
    console.log(`the organ was cut by stroke ${strokes}`);
    const after = await page.evaluate(() => window.ligatureViewer.viewer.views.get('organ').triangles);
    assert.ok(after > before.triangles, `the cut's faces: ${before.triangles} -> ${after} triangles`);
    const still = await page.evaluate(() => window.ligatureViewer.bodyPosition('probe'));
    assert.ok(Math.abs(still[1] - probe[1]) < 1e-6, 'the probe stays where it was left');
  });

  await t.test('the world goes on and the page shows no error', async () => {
    const first = await tick(page);
    const start = Date.now();
    await page.waitForTimeout(3000);
    const ticks = (await tick(page)) - first;
    assert.ok(ticks > 10, `${ticks} ticks in 3 s`);
    console.log(`after the cut the world advanced ${(ticks / 100).toFixed(2)} s of simulated ` +
                `time in ${((Date.now() - start) / 1000).toFixed(2)} s of wall time, sharing ` +
                'the machine with the browser');
    const png = await page.locator('#view canvas').screenshot();
    fs.writeFileSync(path.join(process.env.TEST_OUTPUT_DIR || '/tmp', 'ligature-web-organ.png'), png);
    assert.equal(await page.locator('#error').textContent(), '');
    assert.deepEqual(pageErrors, []);
  });
});
