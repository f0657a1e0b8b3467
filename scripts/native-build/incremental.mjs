// Incremental compile-then-link of one native target (a shared library or the sanitizer test program).
//
// Each source becomes its own object, compiled with -MMD -MP so the compiler lists every header it read.
// An object is rebuilt when it is missing, when the source or any header it read is newer than it, or when
// the command that would build it differs from the one that built it (flags, compiler and, for
// -march=native, the CPU it resolves to: stored beside the object in a .cmd file). Objects compile in
// parallel, one per core; the target is linked again only when an object changed, the link command
// changed, or the target is missing. A header edit thus recompiles only the sources that include it.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { readDepfile } from './depfile.mjs';

function mtimeMs(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

function readText(path) {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

// What the .cmd file beside an output holds: the exact command and what else decides the output.
function stampOf(command, identity) {
  return `${JSON.stringify({ command, identity: identity ?? '' }, null, 1)}\n`;
}

function stampPath(output) {
  return `${output}.cmd`;
}

function depfilePath(object) {
  return object.replace(/\.o$/, '.d');
}

// True when `object` was built by `stamp` and is newer than every file its depfile lists.
function objectUpToDate(unit, stamp) {
  const objectTime = mtimeMs(unit.object);
  if (objectTime === undefined || readText(stampPath(unit.object)) !== stamp) return false;
  const deps = readDepfile(depfilePath(unit.object));
  if (deps === null) return false;
  for (const dep of [unit.source, ...deps]) {
    const t = mtimeMs(dep);
    // A prerequisite that is gone (a deleted or renamed header) means the source changed: rebuild, and let
    // the compiler say what is missing.
    if (t === undefined || t > objectTime) return false;
  }
  return true;
}

function compileCommand(unit) {
  return [unit.compiler, ...unit.args, '-MMD', '-MP', '-MF', depfilePath(unit.object), '-c', unit.source, '-o', unit.object];
}

// Runs a command with its output collected, then written out whole, so that the warnings of parallel
// compiles do not interleave. Resolves to the exit code (a signal counts as failure).
function runCollected(argv, cwd, output) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(argv[0], argv.slice(1), { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks = [];
    child.stdout.on('data', (c) => chunks.push(c));
    child.stderr.on('data', (c) => chunks.push(c));
    child.on('error', reject);
    child.on('close', (code) => {
      if (chunks.length > 0) output(Buffer.concat(chunks));
      resolvePromise(code ?? 1);
    });
  });
}

export class BuildError extends Error {}

// Runs tasks (async functions) with at most `jobs` at once. After the first failure no new task starts;
// those running are waited for, then the first error is thrown.
async function runPool(tasks, jobs) {
  let next = 0;
  let failure = null;
  const worker = async () => {
    while (failure === null && next < tasks.length) {
      const task = tasks[next];
      next += 1;
      try {
        await task();
      } catch (err) {
        failure ??= err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(jobs, tasks.length)) }, worker));
  if (failure !== null) throw failure;
}

// Builds one target. units: [{ source, object, compiler, args, identity }] (absolute paths; args without
// -c/-o/-MF, which are added here). link: { compiler, args(objects) -> argv tail without -o, identity }.
// log gets the progress lines, output the compilers' own messages. Returns { compiled, total, linked }.
export async function buildTarget({
  root, label, out, units, link, jobs, log = console.log, output = (text) => process.stderr.write(text),
}) {
  const start = Date.now();
  const stale = units.filter((unit) => !objectUpToDate(unit, stampOf(compileCommand(unit), unit.identity)));
  if (stale.length > 0) {
    const workers = Math.min(jobs, stale.length);
    log(`xhd: ${label}: compiling ${stale.length} of ${units.length} objects (${workers} at a time)`);
  }
  let done = 0;
  await runPool(stale.map((unit) => async () => {
    const argv = compileCommand(unit);
    mkdirSync(dirname(unit.object), { recursive: true });
    // No stamp while the object is being replaced: an interrupted or failed compile is retried next time.
    rmSync(stampPath(unit.object), { force: true });
    const code = await runCollected(argv, root, output);
    if (code !== 0) throw new BuildError(`${unit.compiler} failed on ${relative(root, unit.source)} (exit ${code})`);
    writeFileSync(stampPath(unit.object), stampOf(argv, unit.identity));
    done += 1;
    log(`  [${done}/${stale.length}] ${relative(root, unit.source)}`);
  }), jobs);

  const objects = units.map((u) => u.object);
  const linkArgv = [link.compiler, ...link.args(objects), '-o', out];
  const linkStamp = stampOf(linkArgv, link.identity);
  const outTime = mtimeMs(out);
  const linkNeeded = stale.length > 0 || outTime === undefined || readText(stampPath(out)) !== linkStamp ||
    objects.some((o) => (mtimeMs(o) ?? Infinity) > outTime);
  if (linkNeeded) {
    mkdirSync(dirname(out), { recursive: true });
    rmSync(stampPath(out), { force: true });
    const code = await runCollected(linkArgv, root, output);
    if (code !== 0) throw new BuildError(`linking ${relative(root, out)} failed (exit ${code})`);
    writeFileSync(stampPath(out), linkStamp);
    log(`xhd: ${label}: linked ${relative(root, out)} (${((Date.now() - start) / 1000).toFixed(1)} s)`);
  } else {
    log(`xhd: ${label}: ${relative(root, out)} is up to date`);
  }
  return { compiled: stale.length, total: units.length, linked: linkNeeded };
}

// Where the object of `source` (under root/kernels) goes in objDir: the same relative path, plus .o.
export function objectPath(root, objDir, source) {
  return `${join(objDir, relative(join(root, 'kernels'), source))}.o`;
}
