/**
 * A byte pipe to one board link. The session code only ever sees this interface, so the same code
 * runs on a real serial device, a pseudo-terminal, or the emulator's serialport binding.
 *
 * `close` fires exactly once per successful `open()`: with `null` when we closed it ourselves, with
 * the reason when the link went away (device unplugged, read error, end of stream).
 * `error` reports problems that do not by themselves end the link.
 */
export interface ByteTransport {
  readonly path: string;
  open(): Promise<void>;
  write(bytes: Uint8Array): Promise<void>;
  close(): Promise<void>;
  on<E extends keyof TransportEvents>(event: E, listener: TransportEvents[E]): void;
  off<E extends keyof TransportEvents>(event: E, listener: TransportEvents[E]): void;
}

export interface TransportEvents {
  data: (chunk: Uint8Array) => void;
  close: (reason: Error | null) => void;
  error: (err: Error) => void;
}

/** Makes a fresh, unopened transport: called again for every reconnect attempt. */
export type TransportFactory = () => ByteTransport;

/** Small typed listener registry shared by the transport implementations. */
export class TransportListeners {
  private readonly map: { [E in keyof TransportEvents]: Set<TransportEvents[E]> } = {
    data: new Set(),
    close: new Set(),
    error: new Set(),
  };

  add<E extends keyof TransportEvents>(event: E, listener: TransportEvents[E]): void {
    this.map[event].add(listener);
  }

  remove<E extends keyof TransportEvents>(event: E, listener: TransportEvents[E]): void {
    this.map[event].delete(listener);
  }

  emit<E extends keyof TransportEvents>(event: E, ...args: Parameters<TransportEvents[E]>): void {
    for (const listener of [...this.map[event]]) {
      (listener as (...a: Parameters<TransportEvents[E]>) => void)(...args);
    }
  }
}
