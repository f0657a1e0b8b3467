// FCL's mesh distance as a peer: scripts/fcl_mesh_distance.cpp, compiled on first use (and again when the
// source is newer) into build/bench/, run as a child process per scene on binary files written here.
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { freemem } from 'node:os';
import { join } from 'node:path';

import type { Pose } from '../../src/ops/mesh-distance.js';
import type { TriangleMesh } from '../../src/ops/surface-distance.js';
import { doneOutcome, type DistanceOutcome, type Frames } from './distance-outcome.js';
import { failureReason, runChild } from './child-process.js';
import { ROOT } from './root.js';

const SOURCE = join(ROOT, 'scripts', 'fcl_mesh_distance.cpp');
const BINARY = join(ROOT, 'build', 'bench', 'fcl_mesh_distance');
const FCL_HEADERS = '/usr/include/fcl';
const EIGEN_HEADERS = '/usr/include/eigen3';

export type FclProbe = { binary: string; version: string } | { error: string };

function fclVersion(): string {
  try {
    const match = /#define FCL_VERSION "([^"]+)"/.exec(readFileSync(join(FCL_HEADERS, 'config.h'), 'utf8'));
    return match ? match[1] : 'unknown';
  } catch {
    return 'unknown';
  }
}

/** Compiler flags for FCL: pkg-config's when it knows FCL (it adds octomap where FCL was built with it), else Debian's paths. */
function fclFlags(): { cflags: string[]; libs: string[] } {
  const pkg = (what: string) => spawnSync('pkg-config', [what, 'fcl'], { encoding: 'utf8' });
  const cflags = pkg('--cflags'), libs = pkg('--libs');
  if (cflags.status === 0 && libs.status === 0) {
    // pkg-config's -std=c++11 would come after ours and win; the harness needs C++17.
    return { cflags: cflags.stdout.trim().split(/\s+/).filter((f) => f !== '' && !f.startsWith('-std=')), libs: libs.stdout.trim().split(/\s+/).filter(Boolean) };
  }
  return { cflags: [`-I${EIGEN_HEADERS}`], libs: ['-lfcl', '-lccd'] };
}

/**
 * Compiles the harness when needed; says why FCL is skipped when its headers are missing or the build fails.
 * XHD_FCL_HARNESS names a harness built elsewhere (with libfcl and libccd on LD_LIBRARY_PATH), for machines
 * that cannot install libfcl-dev, such as a GPU machine with no network; XHD_FCL_VERSION then names its FCL.
 */
export function prepareFcl(log: (line: string) => void): FclProbe {
  const prebuilt = process.env.XHD_FCL_HARNESS;
  if (prebuilt) {
    if (!existsSync(prebuilt)) return { error: `XHD_FCL_HARNESS: ${prebuilt} does not exist` };
    log(`using the prebuilt FCL harness ${prebuilt}`);
    return { binary: prebuilt, version: process.env.XHD_FCL_VERSION ?? 'unknown' };
  }
  if (!existsSync(join(FCL_HEADERS, 'config.h'))) return { error: 'libfcl-dev not installed (apt-get install libfcl-dev)' };
  const version = fclVersion();
  if (existsSync(BINARY) && statSync(BINARY).mtimeMs >= statSync(SOURCE).mtimeMs) return { binary: BINARY, version };
  mkdirSync(join(ROOT, 'build', 'bench'), { recursive: true });
  const { cflags, libs } = fclFlags();
  const args = ['-O3', '-march=native', '-DNDEBUG', '-std=c++17', ...cflags, SOURCE, '-o', BINARY, ...libs];
  log(`compiling the FCL harness (g++ ${args.join(' ')}; a few seconds)`);
  const result = spawnSync('g++', args, { encoding: 'utf8' });
  if (result.error) return { error: `g++: ${result.error.message}` };
  if (result.status !== 0) {
    const lines = result.stderr.trim().split('\n');
    return { error: `compile failed: ${(lines.find((l) => /error/.test(l)) ?? lines[lines.length - 1]).trim()}` };
  }
  return { binary: BINARY, version };
}

function writeParts(path: string, parts: ArrayBufferView[]): void {
  const fd = openSync(path, 'w');
  try {
    for (const part of parts) writeSync(fd, new Uint8Array(part.buffer, part.byteOffset, part.byteLength));
  } finally {
    closeSync(fd);
  }
}

const magic = (text: string) => new TextEncoder().encode(text);

/** The harness's mesh file: "XHDMESH1", uint64 vertices, uint64 triangles, float32 xyz, uint32 indices. */
export function writeMeshFile(path: string, mesh: TriangleMesh): void {
  const counts = BigUint64Array.of(BigInt(mesh.positions.length / 3), BigInt(mesh.triangles.length / 3));
  writeParts(path, [magic('XHDMESH1'), counts, mesh.positions, mesh.triangles]);
}

/** The harness's pose file: "XHDPOSE1", uint64 frames, 12 float64 per frame. */
export function writePosesFile(path: string, poses: Pose[]): void {
  const all = new Float64Array(12 * poses.length);
  poses.forEach((p, k) => all.set(p, 12 * k));
  writeParts(path, [magic('XHDPOSE1'), BigUint64Array.of(BigInt(poses.length)), all]);
}

// FCL keeps a double copy of the vertices (24 B each) and a BVHModel<OBBRSS> of 2T − 1 nodes of about 250 B
// (an OBB and an RSS in double); the build briefly needs the raw mesh and a few arrays more.
const FCL_BYTES_PER_TRIANGLE = 600;
const FCL_BYTES_PER_VERTEX = 48;

/** Why FCL would not fit in the memory free now, or null when it would. */
export function fclMemoryRefusal(a: TriangleMesh, b: TriangleMesh): string | null {
  const bytes = [a, b].reduce((n, m) => n + FCL_BYTES_PER_TRIANGLE * (m.triangles.length / 3) + FCL_BYTES_PER_VERTEX * (m.positions.length / 3), 0);
  const free = freemem();
  return bytes > 0.8 * free ? `needs about ${(bytes / 2 ** 30).toFixed(1)} GiB, ${(free / 2 ** 30).toFixed(1)} GiB free` : null;
}

interface BuiltLine { build_ms: number; fcl: string; triangles_a: number; triangles_b: number }
interface FrameLine { frame: number; ms: number; distance: number }
interface DoneLine { cpu_s: number; peak_rss_mib: number }

/**
 * Runs the harness on written files; the frames it reports before timeoutS (build included) make the
 * outcome. Its times are FCL's own: building both models, then each fcl::distance call.
 */
export async function runFcl(binary: string, files: { a: string; b: string; poses: string }, timeoutS: number): Promise<DistanceOutcome> {
  const frames: Frames = { frameMs: [], distances: [] };
  let built: BuiltLine | undefined, done: DoneLine | undefined;
  let pending = '';
  const r = await runChild(binary, [files.a, files.b, files.poses, '--warmup'], timeoutS, (chunk) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) {
      const record = JSON.parse(line) as Partial<BuiltLine & FrameLine & DoneLine & { built: true; done: true }>;
      if (record.built) built = record as BuiltLine;
      else if (record.done) done = record as DoneLine;
      else frames.frameMs.push(record.ms!), frames.distances.push(record.distance!);
    }
  });
  if (r.timedOut) return { kind: 'timeout', buildMs: built?.build_ms, ...frames };
  if (r.failedToStart || r.code !== 0 || !built || !done) return { kind: 'failed', why: failureReason(r) };
  return doneOutcome(frames, built.build_ms, r.wallMs, { peakRssMiB: done.peak_rss_mib }, done.cpu_s);
}
