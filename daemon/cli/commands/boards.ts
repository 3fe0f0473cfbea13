import { UsageError, type Command } from '../command.ts';
import { numberOption, parseOptions } from '../args.ts';
import { listCandidatePorts, type CandidatePort } from '../../transport/discovery.ts';
import { identifyBoard, type Identification } from '../../board/identify.ts';
import { SerialTransport } from '../../transport/serial-transport.ts';

const usage = `usage: boardcast boards [--timeout <ms>] [--json] [--port <path>]... [--no-scan]

Lists the serial ports that may have a DGT board behind them (serialport's list, and
/dev/serial/by-id, /dev/ttyUSB*, /dev/ttyACM*, /dev/rfcomm* where udev is absent), then asks each
for its serial number and version to tell which are DGT boards.

  --timeout <ms>   how long to wait for each port's answer (default 1500)
  --port <path>    probe this path too (repeatable; e.g. a pseudo-terminal)
  --no-scan        probe only the --port paths, not the ports found on the machine
  --json           print one JSON object per port instead of a table`;

interface Args {
  timeoutMs: number;
  json: boolean;
  ports: string[];
  scan: boolean;
}

function parseBoardsArgs(argv: string[]): Args {
  const { values: v } = parseOptions(argv, {
    timeout: { type: 'string' },
    json: { type: 'boolean' },
    port: { type: 'string', multiple: true },
    'no-scan': { type: 'boolean' },
  });
  const timeoutMs = numberOption(v.timeout, '--timeout', { above: 0, message: '--timeout needs a positive number of milliseconds' }) ?? 1_500;
  if (v.port?.includes('')) throw new UsageError('--port needs a path');
  return { timeoutMs, json: v.json ?? false, ports: v.port ?? [], scan: !(v['no-scan'] ?? false) };
}

function describe(c: CandidatePort | undefined): string {
  if (!c) return 'given on the command line';
  const usb = c.vendorId ? ` ${c.vendorId}:${c.productId ?? '?'}` : '';
  return `${c.manufacturer ?? c.source}${usb}`;
}

const boards: Command = {
  summary: 'list serial ports and identify the DGT boards on them',
  usage,
  async run(argv) {
    const args = parseBoardsArgs(argv);
    if (!args.scan && args.ports.length === 0) throw new UsageError('--no-scan needs at least one --port');
    const candidates = args.scan ? await listCandidatePorts() : [];
    const byPath = new Map(candidates.map((c) => [c.path, c]));
    const paths = [...new Set([...candidates.map((c) => c.path), ...args.ports])];
    if (paths.length === 0) {
      console.log('no serial ports found (looked at serialport list, /dev/serial/by-id, ttyUSB*, ttyACM*, rfcomm*)');
      return 0;
    }
    // One at a time: probing writes to each port, and a shared bus should not hear overlapping queries.
    const results: Identification[] = [];
    for (const path of paths) results.push(await identifyBoard(new SerialTransport(path), { timeoutMs: args.timeoutMs }));
    for (const r of results) {
      const info = byPath.get(r.path);
      if (args.json) {
        console.log(JSON.stringify({ ...r, device: info?.device ?? r.path, source: info?.source ?? 'argument' }));
      } else if (r.dgt) {
        const version = r.version ? `${r.version.major}.${String(r.version.minor).padStart(2, '0')}` : '?';
        console.log(`${r.path}  DGT board  serial ${r.longSerial ?? r.serial}  version ${version}  (${describe(info)})`);
      } else {
        console.log(`${r.path}  not a DGT board: ${r.reason}  (${describe(info)})`);
      }
    }
    const found = results.filter((r) => r.dgt).length;
    if (!args.json) console.log(`${found} DGT board${found === 1 ? '' : 's'} on ${results.length} port${results.length === 1 ? '' : 's'}`);
    return 0;
  },
};

export default boards;
