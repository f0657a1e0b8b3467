// Which native backends this machine can use, and the choice behind --backend auto|cpu|cuda|optix.
import { expectOneOf } from '../core/arguments.js';
import { NativeError, UsageError } from '../core/errors.js';
import { XHD_OK, type RawDeviceInfo } from '../native/abi.js';
import { loadBackend, type BackendName, type NativeBackend } from '../native/library.js';
import { cudaDevicePossible } from './gpu-presence.js';

export const BACKEND_CHOICES = ['auto', 'cpu', 'cuda', 'optix'] as const;
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
  /** The OptiX backend's view of its first GPU (doctor): its OptiX version and RT cores, or why OptiX cannot run. */
  optix?: OptixInfo;
}

export interface OptixInfo {
  available: boolean;
  /** OptiX version of the headers the library was built with, e.g. "9.0.0". */
  version?: string;
  /** OPTIX_DEVICE_PROPERTY_RTCORE_VERSION: 0 means no RT cores (traversal runs in software, e.g. on an H100). */
  rtcoreVersion?: number;
  reason?: string;
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
 * A device described already has started: nothing to do (every pair of `xhd batch` asks, and the call
 * would take a thread-pool thread from the lanes for nothing).
 */
export function warmUpCuda(ordinal: number): Promise<void> {
  if (deviceNames.has(ordinal) || !cudaDevicePossible()) return Promise.resolve();
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

/** OptiX on one device of the OptiX library: starts OptiX there, so its failures (driver, ABI, context) show here. */
export function optixInfo(backend: NativeBackend, ordinal: number): OptixInfo {
  if (!backend.optixInfo) return { available: false, reason: `the ${backend.name} library has no OptiX` };
  const version = new Int32Array(1), rtcore = new Uint32Array(1);
  const status = backend.optixInfo(ordinal, version, rtcore) as number;
  if (status !== XHD_OK) return { available: false, reason: backend.lastError() };
  const v = version[0];
  return { available: true, version: `${Math.floor(v / 10000)}.${Math.floor((v % 10000) / 100)}.${v % 100}`, rtcoreVersion: rtcore[0] };
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
  if (name !== 'optix') return { name, available: true, path: backend.path, devices };
  const optix = optixInfo(backend, 0);
  return { name, available: optix.available, path: backend.path, reason: optix.reason, devices, optix };
}

/** Whether the library loads and has the brute-force references (xhd_capabilities); false when it cannot load. */
function implementsReferenceMethods(name: BackendName): boolean {
  try {
    return loadBackend(name).capabilities.referenceMethods;
  } catch {
    return false;
  }
}

/** Each GPU library's own count (cuda and optix may differ: one may load where the other cannot start). */
const gpuCounts = new Map<string, { count: number; reason: string }>();

function cudaDevices(backend: NativeBackend): { count: number; reason: string } {
  let known = gpuCounts.get(backend.name);
  if (!known) {
    const count = backend.deviceCount();
    known = { count, reason: count > 0 ? '' : backend.lastError() || 'no CUDA GPU found' };
    gpuCounts.set(backend.name, known);
  }
  return known;
}

/**
 * The backend to run on. auto: CUDA when its library loads and sees a GPU (not even loaded where no NVIDIA device
 * file exists: gpu-presence.ts), else the CPU (the brute reference
 * always runs on the CPU). auto never picks OptiX: on every case measured (docs/benchmarks.md, H100 and H200)
 * the CUDA grid is 1.8× to 7.5× faster than the OptiX search, and no GPU with RT cores has been measured. cuda,
 * optix: a GPU (and for optix a working OptiX) or a clear error (exit 3).
 */
export function selectBackend(choice: BackendChoice, method: string, device: number): NativeBackend {
  expectOneOf(choice, BACKEND_CHOICES, 'backend');
  if (choice === 'cpu' || (choice === 'auto' && (method === 'brute' || !cudaDevicePossible()))) return loadBackend('cpu');
  if ((choice === 'cuda' || choice === 'optix') && method === 'brute' && !implementsReferenceMethods(choice)) {
    throw new UsageError('the brute method is the CPU reference implementation; use --backend cpu or auto');
  }
  const gpu: BackendName = choice === 'optix' ? 'optix' : 'cuda';
  let backend: NativeBackend;
  try {
    backend = loadBackend(gpu);
  } catch (err) {
    if (choice === 'auto') return loadBackend('cpu');
    throw err;
  }
  const { count, reason } = cudaDevices(backend);
  if (count === 0) {
    if (choice === 'auto') return loadBackend('cpu');
    throw new NativeError(`--backend ${gpu}: no usable GPU: ${reason}. Run \`xhd doctor\` for details, or use --backend cpu.`);
  }
  if (device >= count) {
    throw new UsageError(`--device ${device} does not exist: ${count} CUDA device${count === 1 ? '' : 's'} found (0 to ${count - 1})`);
  }
  if (choice === 'optix') {
    const info = optixInfo(backend, device);
    if (!info.available) throw new NativeError(`--backend optix: ${info.reason}. Run \`xhd doctor\` for details, or use --backend cuda.`);
  }
  return backend;
}
