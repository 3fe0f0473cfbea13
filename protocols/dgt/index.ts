export * from './squares.ts';
export * from './frame.ts';
export * from './eeprom.ts';
export * from './clock.ts';
export * from './messages.ts';
export * from './decoder.ts';
export * from './commands.ts';
export * from './bus.ts';
