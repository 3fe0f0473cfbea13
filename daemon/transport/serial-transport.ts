import { SerialPortStream } from '@serialport/stream';
import { hangupAwareBinding } from './hangup-aware-binding.ts';
import { TransportListeners, type ByteTransport, type TransportEvents, type TransportFactory } from './byte-transport.ts';

/** DGT link settings: 9600 baud, 8N1, no hardware or software flow control (dgtbrd.h). */
export const DGT_SERIAL_SETTINGS = {
  baudRate: 9600,
  dataBits: 8,
  stopBits: 1,
  parity: 'none',
  rtscts: false,
  xon: false,
  xoff: false,
  xany: false,
} as const;

export type SerialOpenOptions = typeof DGT_SERIAL_SETTINGS & { path: string; autoOpen: false };

/** The part of serialport's SerialPortStream that the transport uses. */
export interface PortStream {
  readonly isOpen: boolean;
  open(callback: (err: Error | null) => void): void;
  write(data: Buffer, callback: (err: Error | null | undefined) => void): boolean;
  close(callback?: (err: Error | null) => void): void;
  on(event: 'open', listener: () => void): unknown;
  on(event: 'data', listener: (chunk: Buffer) => void): unknown;
  on(event: 'close', listener: (err: Error | null) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
  removeAllListeners(): unknown;
}

/** Builds the (unopened) port stream: the seam where tests pass the mock binding. */
export type PortFactory = (options: SerialOpenOptions) => PortStream;

/** The operating system's serial ports (bindings-cpp; reads end when the terminal hangs up). */
const systemBinding = hangupAwareBinding();
export const systemPortFactory: PortFactory = (options) => new SerialPortStream({ ...options, binding: systemBinding });

/** A ByteTransport over one serialport stream. */
export class SerialTransport implements ByteTransport {
  private readonly listeners = new TransportListeners();
  private port: PortStream | null = null;
  private closedReported = true;

  constructor(
    readonly path: string,
    private readonly portFactory: PortFactory = systemPortFactory,
  ) {}

  on<E extends keyof TransportEvents>(event: E, listener: TransportEvents[E]): void {
    this.listeners.add(event, listener);
  }

  off<E extends keyof TransportEvents>(event: E, listener: TransportEvents[E]): void {
    this.listeners.remove(event, listener);
  }

  open(): Promise<void> {
    if (this.port) return Promise.reject(new Error(`${this.path}: already open`));
    let port: PortStream;
    try {
      port = this.portFactory({ ...DGT_SERIAL_SETTINGS, path: this.path, autoOpen: false });
    } catch (err) {
      return Promise.reject(asError(err));
    }
    return new Promise((resolve, reject) => {
      let opened = false;
      // A stream without an error listener would crash the process on the first I/O error.
      port.on('error', (err) => {
        if (opened) this.listeners.emit('error', err);
      });
      port.open((err) => {
        if (err) {
          port.removeAllListeners();
          port.on('error', () => {});
          reject(err);
          return;
        }
        opened = true;
        this.port = port;
        this.closedReported = false;
        port.on('data', (chunk) => this.listeners.emit('data', new Uint8Array(chunk)));
        // bindings-cpp reports a vanished device as `close` with a DisconnectedError; a pty whose
        // other end went away may instead read zero bytes, which the stream turns into `end`.
        port.on('close', (reason) => this.lost(port, reason ?? null));
        port.on('end', () => this.lost(port, new Error(`${this.path}: end of stream`)));
        resolve();
      });
    });
  }

  write(bytes: Uint8Array): Promise<void> {
    const port = this.port;
    if (!port || !port.isOpen) return Promise.reject(new Error(`${this.path}: not open`));
    return new Promise((resolve, reject) => {
      port.write(Buffer.from(bytes), (err) => (err ? reject(err) : resolve()));
    });
  }

  close(): Promise<void> {
    const port = this.port;
    if (!port) return Promise.resolve();
    return new Promise((resolve) => {
      if (!port.isOpen) {
        this.lost(port, null);
        resolve();
        return;
      }
      port.close(() => {
        this.lost(port, null);
        resolve();
      });
    });
  }

  private lost(port: PortStream, reason: Error | null): void {
    if (this.port !== port || this.closedReported) return;
    this.closedReported = true;
    this.port = null;
    if (port.isOpen) port.close(() => {});
    this.listeners.emit('close', reason);
  }
}

/** A factory making SerialTransports for one path: what a session reconnects with. */
export function serialTransportFactory(path: string, portFactory: PortFactory = systemPortFactory): TransportFactory {
  return () => new SerialTransport(path, portFactory);
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
