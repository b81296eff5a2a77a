'use strict';
// What the browser tests share: headless Chromium started with software WebGL (or the test
// skipped, exit code 77, when none is installed), waiting for a condition in the page, and
// putting the pointer on a body until the viewer highlights it.

const fs = require('fs');

const CHROMIUM = [process.env.CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser']
  .find((p) => p && fs.existsSync(p));

// Exits 77 (skipped) when no Chromium is installed; call before anything is started.
function requireChromium() {
  if (CHROMIUM) return;
  console.log('SKIP: no Chromium (install the Debian package `chromium`, or set CHROMIUM)');
  process.exit(77);
}

async function launchChromium() {
  const { chromium } = require('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
           '--ignore-gpu-blocklist'],
  });
}

async function waitFor(page, predicate, arg, timeout = 8000) {
  await page.waitForFunction(predicate, arg, { timeout, polling: 50 });
}

// Puts the pointer on body `id` until the server's ray cast names it, and returns where on
// the page. It steps off and back on, since a move to the pixel the mouse is on sends no
// event. The drawn body can lag the world's for a few frames under load (after a drag
// above all), so each try reads the body's place on the page again.
async function hover(page, id) {
  for (let attempt = 1; ; attempt++) {
    const at = await page.evaluate((body) => window.ligatureViewer.bodyOnPage(body), id);
    await page.mouse.move(at.x + 20, at.y + 20);
    await page.mouse.move(at.x, at.y);
    try {
      await waitFor(page, (body) => window.ligatureViewer.viewer.highlighted === body, id, 3000);
      return at;
    } catch (error) {
      if (attempt === 3) throw error;
    }
  }
}

module.exports = { requireChromium, launchChromium, waitFor, hover };
