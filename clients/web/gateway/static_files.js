'use strict';
// The page's files over HTTP: public/ at /, and three.js from node_modules at /vendor/three/
// (its build/ and examples/jsm/ only). Paths are resolved and checked to stay inside those
// folders.

const fs = require('fs');
const path = require('path');

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

function makeRoutes(webDir) {
  const three = path.join(webDir, 'node_modules', 'three');
  return [
    { prefix: '/vendor/three/build/', dir: path.join(three, 'build') },
    { prefix: '/vendor/three/examples/jsm/', dir: path.join(three, 'examples', 'jsm') },
    { prefix: '/', dir: path.join(webDir, 'public') },
  ];
}

// Resolves a URL path to a file, or null when it is outside every route.
function resolveFile(routes, urlPath) {
  let decoded;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  if (decoded === '/') decoded = '/index.html';
  for (const { prefix, dir } of routes) {
    if (!decoded.startsWith(prefix)) continue;
    const file = path.resolve(dir, '.' + path.posix.normalize('/' + decoded.slice(prefix.length)));
    if (file !== dir && !file.startsWith(dir + path.sep)) return null;
    return file;
  }
  return null;
}

function serveStatic(routes, req, res) {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { Allow: 'GET, HEAD' }).end();
    return;
  }
  const url = new URL(req.url, 'http://localhost');
  const file = resolveFile(routes, url.pathname);
  if (!file) {
    res.writeHead(404).end('not found\n');
    return;
  }
  fs.stat(file, (err, stat) => {
    if (err || !stat.isFile()) {
      res.writeHead(404).end('not found\n');
      return;
    }
    res.writeHead(200, {
      'Content-Type': TYPES[path.extname(file)] || 'application/octet-stream',
      'Content-Length': stat.size,
      'Cache-Control': 'no-cache',
    });
    if (req.method === 'HEAD') { res.end(); return; }
    fs.createReadStream(file).pipe(res);
  });
}

module.exports = { makeRoutes, resolveFile, serveStatic };
