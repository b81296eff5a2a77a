'use strict';
// Mesh assets for the viewers, fetched from AssetService once per gateway process. An asset
// never changes (its name is the hash of its geometry), so a fetched mesh is kept for good
// and shared by every viewer; frames never carry geometry, only the scene message does.

const { call } = require('./grpc_clients');

// Name -> promise of {vertices: flat [x, y, z, ...], indices: [...]}. Viewers asking for an
// asset while it is being fetched wait for the same call; a failed fetch is forgotten, so
// the next viewer tries again.
class AssetCache {
  constructor() { this.meshes = new Map(); }

  // The mesh of asset `name`, from the cache or from `fetch(name)`, a function that
  // resolves with the Asset message (with its geometry).
  get(name, fetch) {
    let pending = this.meshes.get(name);
    if (!pending) {
      pending = Promise.resolve().then(() => fetch(name)).then(flatMesh);
      this.meshes.set(name, pending);
      pending.catch(() => {
        if (this.meshes.get(name) === pending) this.meshes.delete(name);
      });
    }
    return pending;
  }

  // Every asset of `names` that could be fetched, as a Map name -> mesh, and the errors of
  // the others as a Map name -> error (a viewer still draws the rest of the scene).
  async getAll(names, fetch) {
    const meshes = new Map();
    const errors = new Map();
    await Promise.all([...names].map((name) => this.get(name, fetch).then(
      (mesh) => { meshes.set(name, mesh); },
      (error) => { errors.set(name, error); })));
    return { meshes, errors };
  }
}

// An Asset message's geometry, kept flat (the shape encoder scales it per shape).
function flatMesh(asset) {
  const mesh = (asset && asset.mesh) || {};
  const vertices = mesh.vertices || [];
  const flat = new Array(vertices.length * 3);
  for (let i = 0; i < vertices.length; i++) {
    flat[3 * i] = vertices[i].x; flat[3 * i + 1] = vertices[i].y; flat[3 * i + 2] = vertices[i].z;
  }
  return { vertices: flat, indices: Array.from(mesh.indices || []) };
}

// A fetch function for AssetCache.get over the gateway's AssetService client.
function assetFetcher(clients) {
  return (name) => call(clients.asset, 'GetAsset', { name, skip_geometry: false }, 30,
                        clients.metadata);
}

// The cache every ViewerSession of this process shares.
const sharedAssetCache = new AssetCache();

module.exports = { AssetCache, assetFetcher, sharedAssetCache };
