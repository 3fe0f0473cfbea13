import { read } from 'node:fs';
import { promisify } from 'node:util';
// The package's ESM entry ships no types; its CommonJS one does (types only, nothing is loaded).
import type { BindingInterface, BindingPortInterface, OpenOptions, PortInfo, PortStatus, SetOptions, UpdateOptions } from '@serialport/bindings-interface' with { 'resolution-mode': 'require' };
import bindingsCpp from '@serialport/bindings-cpp';

const readAsync = promisify(read);

/** The part of bindings-cpp's unix port (Linux, macOS) that reading by hand needs. */
interface UnixPort extends BindingPortInterface {
  fd: number | null;
  readonly poller: { once(event: 'readable', cb: (err: Error | null) => void): unknown };
}

function isUnixPort(port: BindingPortInterface): port is UnixPort {
  const p = port as Partial<UnixPort>;
  return typeof p.fd === 'number' && typeof p.poller?.once === 'function';
}

/** An error serialport's stream ignores (the host closed the port: the read was called off). */
function canceled(message: string): Error {
  return Object.assign(new Error(message), { canceled: true });
}

/** An error serialport's stream treats as the device going away: it closes the port with it. */
function disconnected(message: string): Error {
  return Object.assign(new Error(message), { disconnect: true });
}

/**
 * A port of the operating system's binding whose reads end when the terminal hangs up.
 *
 * Why: the device side of a serial line can go away without the read failing. When the master of
 * a pseudo-terminal closes (socat killed) or a USB-serial adapter is pulled, Linux hangs the
 * terminal up, and from then on a read returns 0 bytes at once instead of an error. bindings-cpp's
 * unix read takes 0 bytes as "try again" and reads again without waiting: the read never settles,
 * the stream never hears of the loss, and the host only learns of it when it next writes (up to
 * a periodic dump later). Only a read issued while waiting for data sees the hang-up (the poll
 * reports it as an error); one issued just after data arrived falls into the loop, so under load
 * the loss went unnoticed for 10 s and more (the flaky e2e "connection loss event").
 *
 * Reading is done here the way the binding does it (non-blocking read; on EAGAIN wait for the fd
 * to be readable), except that 0 bytes, end of file on a terminal, is the link's end. Everything
 * else is the binding's own.
 */
class HangupAwarePort implements BindingPortInterface {
  constructor(private readonly inner: BindingPortInterface) {}

  get openOptions(): Required<OpenOptions> {
    return this.inner.openOptions;
  }

  get isOpen(): boolean {
    return this.inner.isOpen;
  }

  async read(buffer: Buffer, offset: number, length: number): Promise<{ buffer: Buffer; bytesRead: number }> {
    const port = this.inner;
    if (!isUnixPort(port)) return port.read(buffer, offset, length);
    for (;;) {
      const fd = port.fd;
      if (!port.isOpen || fd === null) throw canceled('Port is not open');
      let bytesRead: number;
      try {
        ({ bytesRead } = await readAsync(fd, buffer, offset, length, null));
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== 'EAGAIN' && code !== 'EWOULDBLOCK' && code !== 'EINTR') throw err;
        if (!port.isOpen) throw canceled('Port is not open');
        await new Promise<void>((resolve, reject) => port.poller.once('readable', (e) => (e ? reject(e) : resolve())));
        continue;
      }
      if (bytesRead === 0) {
        if (!port.isOpen) throw canceled('Port is not open');
        throw disconnected(`${this.openOptions.path}: the terminal hung up (end of file)`);
      }
      return { buffer, bytesRead };
    }
  }

  write(buffer: Buffer): Promise<void> {
    return this.inner.write(buffer);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  update(options: UpdateOptions): Promise<void> {
    return this.inner.update(options);
  }

  set(options: SetOptions): Promise<void> {
    return this.inner.set(options);
  }

  get(): Promise<PortStatus> {
    return this.inner.get();
  }

  getBaudRate(): Promise<{ baudRate: number }> {
    return this.inner.getBaudRate();
  }

  flush(): Promise<void> {
    return this.inner.flush();
  }

  drain(): Promise<void> {
    return this.inner.drain();
  }
}

/** The operating system's serial binding (bindings-cpp), with reads that end on a hang-up. */
export function hangupAwareBinding(inner: BindingInterface = bindingsCpp.autoDetect()): BindingInterface<HangupAwarePort> {
  return {
    list: (): Promise<PortInfo[]> => inner.list(),
    open: async (options: OpenOptions): Promise<HangupAwarePort> => new HangupAwarePort(await inner.open(options)),
  };
}
