// Worker lists (--devices) the CUDA suites run their split checks on: the lists given, and on a multi-GPU
// host whatever XHD_TEST_DEVICES asks for (`all`, or ordinals such as `0,1,2`). Two workers on device 0 run
// the split and the merge on any GPU machine.
import { withEnv } from './reader-test-tools.js';

export type WorkerList = number[] | 'all';

export function splitLists(base: WorkerList[]): WorkerList[] {
  const lists = [...base];
  const asked = process.env.XHD_TEST_DEVICES;
  if (asked === 'all') lists.push('all');
  else if (asked) lists.push(asked.split(',').map(Number));
  return lists;
}

/** Runs `run` with the library asked for one way of splitting a compare (XHD_SPLIT_BY, read at each call). */
export async function withSplitBy<T>(split: 'space' | 'queries', run: () => Promise<T>): Promise<T> {
  return withEnv({ XHD_SPLIT_BY: split }, run);
}
