import { mkdtempSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listCandidatePorts } from '../../daemon/transport/discovery.ts';

describe('listCandidatePorts', () => {
  let dev: string;
  beforeEach(() => {
    dev = mkdtempSync(join(tmpdir(), 'boardcast-dev-'));
    for (const name of ['ttyUSB0', 'ttyACM3', 'rfcomm0', 'ttyS0', 'tty1', 'null']) writeFileSync(join(dev, name), '');
    mkdirSync(join(dev, 'serial', 'by-id'), { recursive: true });
    symlinkSync('../../ttyUSB0', join(dev, 'serial', 'by-id', 'usb-Digital_Game_Technology_DGT_board-if00-port0'));
  });
  afterEach(() => rmSync(dev, { recursive: true, force: true }));

  it('falls back to the device directory when udev listing fails, preferring by-id links', async () => {
    const ports = await listCandidatePorts({ devDir: dev, list: () => Promise.reject(new Error('no udevadm')) });
    expect(ports.map((p) => p.path)).toEqual([join(dev, 'rfcomm0'), join(dev, 'serial', 'by-id', 'usb-Digital_Game_Technology_DGT_board-if00-port0'), join(dev, 'ttyACM3')]);
    const usb = ports.find((p) => p.source === 'by-id');
    expect(usb?.device.endsWith('ttyUSB0')).toBe(true);
  });

  it('merges serialport listing details with the stable by-id path', async () => {
    const ports = await listCandidatePorts({
      devDir: dev,
      list: async () => [{ path: join(dev, 'ttyUSB0'), manufacturer: 'FTDI', vendorId: '0403', productId: '6001' }],
    });
    const usb = ports.filter((p) => p.device.endsWith('ttyUSB0'));
    expect(usb).toHaveLength(1);
    expect(usb[0]).toMatchObject({ manufacturer: 'FTDI', vendorId: '0403', source: 'serialport' });
    expect(usb[0]?.path).toContain('by-id');
  });
});
