/** The emulated DGT board + DGT3000 clock: pure model, bus multiplexer and script runner. */
export { BoardEmulator, CLOCK_POLL_MS, START_GAME_REPLY_MS, pingSlotMs } from './board-emulator.ts';
export type { BatteryStatus, BoardEmulatorOptions, BoardMode, EmulatorAction, EmulatorCounters, TimedBytes } from './board-emulator.ts';
export { EmulatedBus } from './emulated-bus.ts';
export { BYTE_TIME_MS, SerialWire } from './wire.ts';
export { ScriptCursor, concatBytes, runScript } from './script.ts';
export type { EmulatedDevice, ScriptOptions, TimedDevice } from './script.ts';
export { CLOCK_BUTTON } from './dgt3000.ts';
export type { ClockButton, ClockDisplay } from './dgt3000.ts';
export { EE, EEPROM_SIZE } from './eeprom-log.ts';
