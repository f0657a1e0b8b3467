// The --json report of `xhd distance`. Its keys are a stable, documented interface (README, "xhd distance"):
// later versions add keys beside these and never rename them. Keys of a distance not asked for are absent.
import type { DistanceResult } from '../jobs/distance.js';
import type { FrameOutcome, FramesSummary } from '../jobs/frame-summary.js';
import type { DistanceContacts, DistancePair, DistancePenetration, Pose } from '../ops/mesh-distance.js';
import { XHD_VERSION } from '../core/version.js';
import { deviceJson, inputJson } from './compare-json.js';

export const DISTANCE_JSON_SCHEMA_VERSION = 1;

function pairJson(p: DistancePair, withIntersecting: boolean) {
  const json = { a_triangle: p.triangleA, a_point: p.pointA, b_triangle: p.triangleB, b_point: p.pointB };
  return withIntersecting ? { ...json, intersecting: p.intersecting } : json;
}

/** min_distance, max_distance, min_pair, max_pair: each present only when that distance was measured. */
function distancesJson(min: DistancePair | null, max: DistancePair | null) {
  return {
    ...(min ? { min_distance: min.distance } : {}),
    ...(max ? { max_distance: max.distance } : {}),
    ...(min ? { min_pair: pairJson(min, true) } : {}),
    ...(max ? { max_pair: pairJson(max, false) } : {}),
  };
}

/** contacts: intersecting_pairs (triangle pairs at distance 0) and bounds ({min, max} corners, or null). */
function contactsJson(c: DistanceContacts) {
  return { intersecting_pairs: c.pairs, bounds: c.bounds ? { min: c.bounds.min, max: c.bounds.max } : null };
}

/**
 * penetration: solids ('open', 'apart', 'overlap', 'undecided'), a_closed, b_closed, convex, and the depth's bounds
 * depth_lower <= depth <= depth_upper (null when a mesh is not closed) with direction (B moved by depth_upper along it
 * parts the solids; null when no move is needed).
 */
function penetrationJson(p: DistancePenetration) {
  return {
    solids: p.solids, a_closed: p.closed.a, b_closed: p.closed.b, convex: p.convex,
    depth_lower: p.lower, depth_upper: p.upper, direction: p.direction,
  };
}

function poseRows(pose: Pose): number[][] {
  return [0, 4, 8].map((row) => Array.from(pose.subarray(row, row + 4)));
}

function frameJson(f: FrameOutcome) {
  const { min_pair, max_pair, ...distances } = distancesJson(f.min, f.max);
  return { frame: f.frame, line: f.line, ...distances, query_ms: f.queryMs, min_pair, max_pair, ...(f.contacts ? { contacts: contactsJson(f.contacts) } : {}),
    ...(f.penetration ? { penetration: penetrationJson(f.penetration) } : {}) };
}

function summaryJson(s: FramesSummary) {
  return {
    frames: s.frames,
    query_ms: s.queryMs,
    ...(s.min ? { min_distance: s.min.distance, min_frame: s.min.frame } : {}),
    ...(s.max ? { max_distance: s.max.distance, max_frame: s.max.frame } : {}),
  };
}

export function distanceJson(r: DistanceResult) {
  return {
    schema_version: DISTANCE_JSON_SCHEMA_VERSION,
    xhd_version: XHD_VERSION,
    ...distancesJson(r.min, r.max),
    ...(r.contacts ? { contacts: contactsJson(r.contacts) } : {}),
    ...(r.penetration ? { penetration: penetrationJson(r.penetration) } : {}),
    ...(r.pose ? { pose_b: poseRows(r.pose) } : {}),
    ...(r.frames ? { frames_file: r.framesPath, frames: r.frames.map(frameJson), frames_summary: summaryJson(r.summary!) } : {}),
    a: inputJson(r.a),
    b: inputJson(r.b),
    method: r.method,
    backend: r.backend,
    threads: r.threads,
    device: deviceJson(r.device),
    box_pairs: r.boxPairs,
    triangle_pairs: r.trianglePairs,
    timings_ms: r.timingsMs,
    notes: r.notes,
  };
}

export function renderDistanceJson(r: DistanceResult): string {
  return JSON.stringify(distanceJson(r), null, 2) + '\n';
}
