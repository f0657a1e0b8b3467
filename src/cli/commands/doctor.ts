// Registers `xhd doctor`: which backends this machine can use, its GPUs, and why a backend is missing.
import { Command } from 'commander';

import { probeBackend, type BackendStatus } from '../../ops/backends.js';
import { EXIT_NATIVE } from '../../core/errors.js';
import { setExitStatus } from '../exit-status.js';
import { formatBytes } from '../../report/format.js';
import { terminalChalk } from '../terminal.js';
import { XHD_VERSION } from '../../core/version.js';

/** What --backend auto picks (selectBackend): the GPU when it works, else the CPU, else nothing. Never OptiX. */
function autoBackend(statuses: BackendStatus[]): 'cuda' | 'cpu' | null {
  const usable = (name: string) => statuses.some((s) => s.name === name && s.available);
  return usable('cuda') ? 'cuda' : usable('cpu') ? 'cpu' : null;
}

/** The OptiX line of the optix backend: version and RT cores, or nothing when OptiX did not start (the reason says why). */
function optixLine(s: BackendStatus): string | null {
  if (!s.optix?.available) return null;
  const rt = s.optix.rtcoreVersion ?? 0;
  return `OptiX ${s.optix.version} · RT cores ${rt > 0 ? `version ${rt}` : 'none (traversal runs in software)'} · ` +
    'auto uses cuda, measured faster; --backend optix chooses it';
}

function doctorJson(statuses: BackendStatus[]) {
  return {
    xhd_version: XHD_VERSION,
    backends: statuses.map((s) => ({
      name: s.name,
      available: s.available,
      library: s.path ?? null,
      reason: s.reason ?? null,
      optix: s.optix ? { available: s.optix.available, version: s.optix.version ?? null,
        rtcore_version: s.optix.rtcoreVersion ?? null } : undefined,
      devices: s.devices.map((d) => ({
        ordinal: d.ordinal,
        name: d.name,
        compute_capability: d.computeCapability,
        multiprocessors: d.multiprocessors,
        memory_bytes: d.totalMemoryBytes,
        free_memory_bytes: d.freeMemoryBytes,
        driver: d.driverVersion,
        runtime: d.runtimeVersion,
      })),
    })),
    auto_backend: autoBackend(statuses),
  };
}

function doctorText(statuses: BackendStatus[]): string {
  const c = terminalChalk(process.stdout);
  const lines: string[] = [];
  for (const s of statuses) {
    lines.push(`${c.bold(s.name.padEnd(5))} ${s.available ? c.green('available') : c.yellow('unavailable')}${s.path ? c.dim(`  ${s.path}`) : ''}`);
    if (s.reason) for (const line of s.reason.split('\n')) lines.push(`      ${line.trim()}`);
    const optix = optixLine(s);
    if (optix) lines.push(`      ${optix}`);
    for (const d of s.devices) {
      lines.push(
        `      GPU ${d.ordinal}: ${d.name} · compute ${d.computeCapability} · ${d.multiprocessors} SMs · ` +
          `${formatBytes(d.totalMemoryBytes)} (${formatBytes(d.freeMemoryBytes)} free) · driver CUDA ${d.driverVersion}, runtime ${d.runtimeVersion}`,
      );
    }
  }
  const auto = autoBackend(statuses);
  lines.push('', `--backend auto uses: ${auto ?? 'none (no backend library loads: nothing can be measured here)'}`);
  return lines.join('\n') + '\n';
}

export function registerDoctor(program: Command): void {
  program
    .command('doctor')
    .description('list the compute backends and GPUs xhd can use here, and why any is unavailable')
    .option('--json', 'print one JSON object on stdout', false)
    .action((flags: { json: boolean }) => {
      const statuses = [probeBackend('cpu'), probeBackend('cuda'), probeBackend('optix')];
      process.stdout.write(flags.json ? JSON.stringify(doctorJson(statuses), null, 2) + '\n' : doctorText(statuses));
      // Exit 3, as any command would with no native library: scripts that check the machine see it fail.
      if (autoBackend(statuses) === null) setExitStatus(EXIT_NATIVE);
    });
}
