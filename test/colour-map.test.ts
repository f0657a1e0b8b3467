// The heatmap's colour map: its stops, the points halfway between them, and out-of-range input.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { HEAT_STOPS, heatColour, writeHeatColour } from '../src/report/colour-map.js';

test('the ends are blue (0) and red (1)', () => {
  assert.deepEqual(heatColour(0), [0, 0, 255]);
  assert.deepEqual(heatColour(1), [255, 0, 0]);
});

test('the inner stops are cyan, green and yellow at ¼, ½ and ¾', () => {
  assert.deepEqual(heatColour(0.25), [0, 255, 255]);
  assert.deepEqual(heatColour(0.5), [0, 255, 0]);
  assert.deepEqual(heatColour(0.75), [255, 255, 0]);
  assert.deepEqual(HEAT_STOPS.map((_, k) => heatColour(k / 4)), HEAT_STOPS);
});

test('halfway between two stops, each channel is halfway (127.5 rounds up)', () => {
  assert.deepEqual(heatColour(0.125), [0, 128, 255]);
  assert.deepEqual(heatColour(0.375), [0, 255, 128]);
  assert.deepEqual(heatColour(0.625), [128, 255, 0]);
  assert.deepEqual(heatColour(0.875), [255, 128, 0]);
  assert.deepEqual(heatColour(0.1), [0, 102, 255]); // 0.4 of the way from blue to cyan
});

test('t outside [0, 1] is clamped and NaN is blue', () => {
  assert.deepEqual(heatColour(-0.5), [0, 0, 255]);
  assert.deepEqual(heatColour(7), [255, 0, 0]);
  assert.deepEqual(heatColour(Number.NaN), [0, 0, 255]);
});

test('writeHeatColour writes three bytes at the offset and nothing else', () => {
  const out = new Uint8Array(7).fill(9);
  writeHeatColour(0.75, out, 2);
  assert.deepEqual([...out], [9, 9, 255, 255, 0, 9, 9]);
});
