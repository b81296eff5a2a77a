// Meshes for rigid shapes, in the body's frame: sphere, box, capsule (axis along local y),
// plane (the local XZ plane, normal +y, drawn as a large square with a grid), convex hulls
// (the hull of their points), triangle meshes (both sides drawn) and compounds of them, each child
// at its pose.
import * as THREE from 'three';
import { ConvexGeometry } from 'three/addons/geometries/ConvexGeometry.js';
import { COLOURS } from './colours.js';

const PLANE_SIZE = 40;

export function buildShape(shape, material) {
  if (!shape) return new THREE.Group();
  switch (shape.kind) {
    case 'sphere':
      return new THREE.Mesh(new THREE.SphereGeometry(shape.radius, 32, 16), material);
    case 'box': {
      const [x, y, z] = shape.halfExtents;
      return new THREE.Mesh(new THREE.BoxGeometry(2 * x, 2 * y, 2 * z), material);
    }
    case 'capsule':
      return new THREE.Mesh(
        new THREE.CapsuleGeometry(shape.radius, 2 * shape.halfLength, 8, 24), material);
    case 'plane':
      return buildPlane();
    case 'hull': {
      const points = [];
      for (let i = 0; i + 2 < shape.points.length; i += 3) {
        points.push(new THREE.Vector3(shape.points[i], shape.points[i + 1], shape.points[i + 2]));
      }
      return new THREE.Mesh(new ConvexGeometry(points), material);
    }
    case 'mesh': {
      // Both sides drawn, so a mesh wound the wrong way still shows.
      const geometry = new THREE.BufferGeometry();
      geometry.setAttribute('position', new THREE.Float32BufferAttribute(shape.vertices, 3));
      geometry.setIndex(shape.indices);
      geometry.computeVertexNormals();
      const twoSided = material.clone();
      twoSided.side = THREE.DoubleSide;
      return new THREE.Mesh(geometry, twoSided);
    }
    case 'compound': {
      const group = new THREE.Group();
      for (const child of shape.children) {
        const object = buildShape(child.shape, material);
        setPose(object, child.p, child.q);
        group.add(object);
      }
      return group;
    }
    default:
      return new THREE.Group();
  }
}

function buildPlane() {
  const group = new THREE.Group();
  const square = new THREE.Mesh(
    new THREE.PlaneGeometry(PLANE_SIZE, PLANE_SIZE),
    new THREE.MeshStandardMaterial({ color: COLOURS.ground, roughness: 0.95 }));
  square.rotation.x = -Math.PI / 2;
  square.receiveShadow = true;
  group.add(square);
  const grid = new THREE.GridHelper(PLANE_SIZE, PLANE_SIZE * 2, 0x737c87, 0x666e78);
  grid.position.y = 0.001;
  group.add(grid);
  group.userData.isPlane = true;
  return group;
}

export function setPose(object, p, q) {
  object.position.set(p[0], p[1], p[2]);
  object.quaternion.set(q[0], q[1], q[2], q[3]);
}
