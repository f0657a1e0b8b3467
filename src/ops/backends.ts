// Which native backends this machine can use, and the choice behind --backend auto|cpu|cuda.
import { expectOneOf } from '../core/arguments.js';
import { NativeError, UsageError } from '../core/errors.js';
import { XHD_OK, type RawDeviceInfo } from '../native/abi.js';
import { loadBackend, type BackendName, type NativeBackend } from '../native/library.js';

export const BACKEND_CHOICES = ['auto', 'cpu', 'cuda'] as const;
export type BackendChoice = (typeof BACKEND_CHOICES)[number];

export interface DeviceInfo {
  ordinal: number;
  name: string;
  computeCapability: string;
  multiprocessors: number;
  totalMemoryBytes: number;
  freeMemoryBytes: number;
  driverVersion: string;
  runtimeVersion: string;
}

export interface BackendStatus {
  name: BackendName;
  available: boolean;
  path?: string;
  /** Why the backend cannot be used here (missing library, no GPU, old driver...). */
  reason?: string;
  devices: DeviceInfo[];
}

function cudaVersion(v: number): string {
  return `${Math.floor(v / 1000)}.${Math.floor((v % 1000) / 10)}`;
}

function readDevice(backend: NativeBackend, ordinal: number): DeviceInfo {
  const raw = {} as RawDeviceInfo;
  const status = backend.deviceInfo(ordinal, raw) as number;
  if (status !== XHD_OK) throw new NativeError(`cannot describe CUDA device ${ordinal}: ${backend.lastError()}`);
  return toDeviceInfo(raw);
}

function toDeviceInfo(raw: RawDeviceInfo): DeviceInfo {
  return {
    ordinal: raw.ordinal,
    name: raw.name,
    computeCapability: `${raw.compute_major}.${raw.compute_minor}`,
    multiprocessors: raw.multiprocessors,
    totalMemoryBytes: Number(raw.total_memory),
    freeMemoryBytes: Number(raw.free_memory),
    driverVersion: cudaVersion(raw.driver_version),
    runtimeVersion: cudaVersion(raw.runtime_version),
  };
}

const deviceNames = new Map<number, DeviceInfo>();

/** Description of a CUDA device (cached: the name and capability do not change while we run). */
export function cudaDevice(ordinal: number): DeviceInfo {
  let info = deviceNames.get(ordinal);
  if (!info) {
    info = readDevice(loadBackend('cuda'), ordinal);
    deviceNames.set(ordinal, info);
  }
  return info;
}

/**
 * Starts the CUDA driver and the device's context on a worker thread (describing the device does
 * both) and caches the description, so a caller can overlap that start-up, a few hundred milliseconds,
 * with reading its inputs. Never rejects: selectBackend reports any problem once a backend is chosen.
 */
export function warmUpCuda(ordinal: number): Promise<void> {
  let backend: NativeBackend;
  try {
    backend = loadBackend('cuda');
  } catch {
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    const raw = {} as RawDeviceInfo;
    backend.deviceInfo.async(ordinal, raw, (err: unknown, status: number) => {
      if (!err && status === XHD_OK && !deviceNames.has(ordinal)) deviceNames.set(ordinal, toDeviceInfo(raw));
      resolve();
    });
  });
}

/** Loads a backend and lists its devices, turning every failure into a reason instead of throwing. */
export function probeBackend(name: BackendName): BackendStatus {
  let backend: NativeBackend;
  try {
    backend = loadBackend(name);
  } catch (err) {
    return { name, available: false, reason: err instanceof Error ? err.message : String(err), devices: [] };
  }
  // A library that computes on the host is usable as soon as it loads; one that computes on devices needs one.
  if (!backend.capabilities.devices) return { name, available: true, path: backend.path, devices: [] };
  const count = backend.deviceCount();
  if (count <= 0) return { name, available: false, path: backend.path, reason: backend.lastError() || 'no CUDA GPU found', devices: [] };
  const devices: DeviceInfo[] = [];
  for (let i = 0; i < count; i++) devices.push(readDevice(backend, i));
  return { name, available: true, path: backend.path, devices };
}

/** Whether the library loads and has the brute-force references (xhd_capabilities); false when it cannot load. */
function implementsReferenceMethods(name: BackendName): boolean {
  try {
    return loadBackend(name).capabilities.referenceMethods;
  } catch {
    return false;
  }
}

let cudaCount: { count: number; reason: string } | undefined;

function cudaDevices(backend: NativeBackend): { count: number; reason: string } {
  if (!cudaCount) {
    const count = backend.deviceCount();
    cudaCount = { count, reason: count > 0 ? '' : backend.lastError() || 'no CUDA GPU found' };
  }
  return cudaCount;
}

/**
 * The backend to run on. auto: CUDA when its library loads and sees a GPU, else the CPU (the brute
 * reference always runs on the CPU). cuda: a GPU or a clear error (exit 3).
 */
export function selectBackend(choice: BackendChoice, method: string, device: number): NativeBackend {
  expectOneOf(choice, BACKEND_CHOICES, 'backend');
  if (choice === 'cpu' || (choice === 'auto' && method === 'brute')) return loadBackend('cpu');
  if (choice === 'cuda' && method === 'brute' && !implementsReferenceMethods('cuda')) {
    throw new UsageError('the brute method is the CPU reference implementation; use --backend cpu or auto');
  }
  let cuda: NativeBackend;
  try {
    cuda = loadBackend('cuda');
  } catch (err) {
    if (choice === 'auto') return loadBackend('cpu');
    throw err;
  }
  const { count, reason } = cudaDevices(cuda);
  if (count === 0) {
    if (choice === 'auto') return loadBackend('cpu');
    throw new NativeError(`--backend cuda: no usable GPU: ${reason}. Run \`xhd doctor\` for details, or use --backend cpu.`);
  }
  if (device >= count) {
    throw new UsageError(`--device ${device} does not exist: ${count} CUDA device${count === 1 ? '' : 's'} found (0 to ${count - 1})`);
  }
  return cuda;
}
