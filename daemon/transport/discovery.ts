import { readdir, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { SerialPort } from 'serialport';

/** A device node that might have a DGT board behind it. */
export interface CandidatePort {
  /** The path to open (a /dev/serial/by-id link when one exists: stable across re-plugging). */
  path: string;
  /** The device node the path resolves to. */
  device: string;
  /** Where we found it. */
  source: 'serialport' | 'by-id' | 'dev';
  manufacturer?: string;
  vendorId?: string;
  productId?: string;
  usbSerialNumber?: string;
}

export interface PortInfoLike {
  path: string;
  manufacturer?: string;
  vendorId?: string;
  productId?: string;
  serialNumber?: string;
}

export interface DiscoveryOptions {
  /** serialport's list (udev based on Linux); may fail or come back empty where udev is absent. */
  list?: () => Promise<PortInfoLike[]>;
  /** Root of the device tree: tests point this at a temporary directory. */
  devDir?: string;
}

/** Device names a DGT board shows up as: USB-serial (FTDI/CDC), and Bluetooth SPP. */
const DEVICE_PATTERNS = [/^ttyUSB\d+$/, /^ttyACM\d+$/, /^rfcomm\d+$/];

/**
 * Lists device nodes worth probing. serialport's list needs udev; containers and minimal systems
 * have none, so the device directory is also scanned directly. Results are de-duplicated by the
 * device they resolve to, preferring the stable by-id name.
 */
export async function listCandidatePorts(options: DiscoveryOptions = {}): Promise<CandidatePort[]> {
  const devDir = options.devDir ?? '/dev';
  const list = options.list ?? (() => SerialPort.list());
  const byDevice = new Map<string, CandidatePort>();

  const add = (candidate: CandidatePort): void => {
    const existing = byDevice.get(candidate.device);
    if (!existing) {
      byDevice.set(candidate.device, candidate);
      return;
    }
    // Keep what serialport knew (manufacturer, USB ids) but open through the by-id link.
    if (candidate.source === 'by-id') existing.path = candidate.path;
    existing.manufacturer ??= candidate.manufacturer;
    existing.vendorId ??= candidate.vendorId;
    existing.productId ??= candidate.productId;
    existing.usbSerialNumber ??= candidate.usbSerialNumber;
  };

  let listed: PortInfoLike[] = [];
  try {
    listed = await list();
  } catch {
    listed = [];
  }
  for (const info of listed) {
    add({
      path: info.path,
      device: await resolved(info.path),
      source: 'serialport',
      ...(info.manufacturer ? { manufacturer: info.manufacturer } : {}),
      ...(info.vendorId ? { vendorId: info.vendorId } : {}),
      ...(info.productId ? { productId: info.productId } : {}),
      ...(info.serialNumber ? { usbSerialNumber: info.serialNumber } : {}),
    });
  }

  const byIdDir = join(devDir, 'serial', 'by-id');
  for (const name of await names(byIdDir)) {
    const path = join(byIdDir, name);
    add({ path, device: await resolved(path), source: 'by-id' });
  }

  for (const name of await names(devDir)) {
    if (!DEVICE_PATTERNS.some((re) => re.test(name))) continue;
    const path = join(devDir, name);
    add({ path, device: await resolved(path), source: 'dev' });
  }

  return [...byDevice.values()].sort((a, b) => a.path.localeCompare(b.path));
}

async function names(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch {
    return [];
  }
}

async function resolved(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    return path;
  }
}
