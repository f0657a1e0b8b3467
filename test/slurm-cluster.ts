// A one-node Slurm cluster on localhost for the sharding integration test: munged with its own key and
// socket, slurmctld and slurmd from a generated slurm.conf, everything in one temporary directory. It uses no
// system configuration (/etc/slurm, /etc/munge) and stops exactly the daemons it started, by pid.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, hostname, tmpdir } from 'node:os';
import { join } from 'node:path';

const BINARIES = ['munged', 'slurmctld', 'slurmd', 'sbatch', 'sinfo'];

/** Why the cluster cannot be started here, or false when it can. */
export function slurmUnavailable(): string | false {
  const missing = BINARIES.filter((b) => spawnSync('sh', ['-c', `command -v ${b}`], { encoding: 'utf8' }).status !== 0);
  if (missing.length > 0) return `Slurm is not installed (no ${missing.join(', ')}; Debian: apt-get install slurm-wlm munge)`;
  if (process.getuid?.() !== 0) return 'slurmd runs jobs only as root here: run the test as root';
  return false;
}

/** A TCP port nobody listens on now. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

export class LocalSlurm {
  readonly dir: string;
  readonly env: Record<string, string>;
  private readonly daemons: Array<{ name: string; child: ChildProcess }> = [];

  private constructor(dir: string) {
    this.dir = dir;
    this.env = { SLURM_CONF: join(dir, 'slurm.conf') };
  }

  /** Starts munged, slurmctld and slurmd and waits until the node is idle. */
  static async start(): Promise<LocalSlurm> {
    const dir = mkdtempSync(join(tmpdir(), 'xhd-slurm-'));
    chmodSync(dir, 0o755); // munged wants its socket's directory searchable by all
    const cluster = new LocalSlurm(dir);
    try {
      await cluster.startDaemons();
    } catch (error) {
      await cluster.stop();
      throw error;
    }
    return cluster;
  }

  private daemon(name: string, command: string, args: string[]): void {
    const log = openSync(join(this.dir, `${name}.out`), 'w');
    const child = spawn(command, args, { stdio: ['ignore', log, log], env: { ...process.env, ...this.env } });
    closeSync(log);
    this.daemons.push({ name, child });
  }

  private async startDaemons(): Promise<void> {
    const d = this.dir;
    const key = join(d, 'munge.key');
    writeFileSync(key, randomBytes(1024), { mode: 0o600 });
    const socket = join(d, 'munge.sock');
    this.daemon('munged', 'munged', ['--foreground', '--force', `--key-file=${key}`, `--socket=${socket}`,
      `--pid-file=${join(d, 'munged.pid')}`, `--log-file=${join(d, 'munged.log')}`, `--seed-file=${join(d, 'munged.seed')}`]);
    const host = hostname().split('.')[0];
    mkdirSync(join(d, 'state'));
    mkdirSync(join(d, 'spool'));
    const [ctldPort, slurmdPort] = [await freePort(), await freePort()];
    writeFileSync(this.env.SLURM_CONF, [
      'ClusterName=xhdtest',
      `SlurmctldHost=${host}(127.0.0.1)`,
      `SlurmctldPort=${ctldPort}`,
      `SlurmdPort=${slurmdPort}`,
      'SlurmUser=root',
      'SlurmdUser=root',
      'AuthType=auth/munge',
      `AuthInfo=socket=${socket}`,
      'CredType=cred/munge',
      `StateSaveLocation=${join(d, 'state')}`,
      `SlurmdSpoolDir=${join(d, 'spool')}`,
      `SlurmctldPidFile=${join(d, 'slurmctld.pid')}`,
      `SlurmdPidFile=${join(d, 'slurmd.pid')}`,
      `SlurmctldLogFile=${join(d, 'slurmctld.log')}`,
      `SlurmdLogFile=${join(d, 'slurmd.log')}`,
      // No cgroups (containers rarely allow them): processes tracked by their parent, tasks unconfined.
      'ProctrackType=proctrack/linuxproc',
      'TaskPlugin=task/none',
      // One core a task, so the four array tasks run side by side where the cores allow.
      'SelectType=select/cons_tres',
      'SelectTypeParameters=CR_Core',
      'SchedulerType=sched/builtin',
      'ReturnToService=2',
      'MpiDefault=none',
      'JobCompType=jobcomp/none',
      'AccountingStorageType=accounting_storage/none',
      'JobAcctGatherType=jobacct_gather/none',
      `NodeName=${host} NodeAddr=127.0.0.1 CPUs=${cpus().length} State=UNKNOWN`,
      `PartitionName=xhd Nodes=${host} Default=YES MaxTime=INFINITE State=UP`,
    ].join('\n') + '\n');
    await this.waitFor(() => spawnSync('munge', ['-n', '-S', socket]).status === 0, 'munged to answer');
    this.daemon('slurmctld', 'slurmctld', ['-D', '-i', '-f', this.env.SLURM_CONF]);
    this.daemon('slurmd', 'slurmd', ['-D', '-f', this.env.SLURM_CONF]);
    await this.waitFor(() => {
      const r = spawnSync('sinfo', ['-h', '-o', '%T'], { encoding: 'utf8', env: { ...process.env, ...this.env } });
      return r.status === 0 && r.stdout.trim() === 'idle';
    }, 'the node to be idle');
  }

  private async waitFor(ready: () => boolean, what: string, seconds = 60): Promise<void> {
    const until = Date.now() + seconds * 1000;
    while (Date.now() < until) {
      const dead = this.daemons.find((x) => x.child.exitCode !== null || x.child.signalCode !== null);
      if (dead) throw new Error(`${dead.name} exited: ${this.log(dead.name)}`);
      if (ready()) return;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error(`timed out waiting for ${what}; ${this.daemons.map((x) => `${x.name}: ${this.log(x.name)}`).join('; ')}`);
  }

  /** The last lines a daemon printed, for a failure's message. */
  log(name: string): string {
    try {
      return readFileSync(join(this.dir, `${name}.out`), 'utf8').trim().split('\n').slice(-5).join(' | ');
    } catch {
      return '(no log)';
    }
  }

  /** sbatch with the cluster's configuration; resolves with its exit code and output. */
  sbatch(args: string[], env: Record<string, string> = {}): { code: number | null; stdout: string; stderr: string } {
    const r = spawnSync('sbatch', args, { encoding: 'utf8', env: { ...process.env, ...this.env, ...env }, timeout: 300_000 });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  }

  /** Stops the daemons this cluster started (by pid, newest first), SIGKILL for any that linger. */
  async stop(): Promise<void> {
    for (const { child } of [...this.daemons].reverse()) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      process.kill(child.pid!, 'SIGTERM');
      const timer = setTimeout(() => {
        if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGKILL');
      }, 10_000);
      await exited;
      clearTimeout(timer);
    }
  }
}
