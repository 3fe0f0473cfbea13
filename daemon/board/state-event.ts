/** A link's state change as sessions report it: optional fields only when they say something. */
export interface StateEvent<S extends string> {
  type: 'state';
  at: number;
  state: S;
  detail?: string;
  retryInMs?: number;
}

/** Leaves `detail` and `retryInMs` out when undefined (exactOptionalPropertyTypes: absent, not undefined). */
export function stateEvent<S extends string>(at: number, state: S, detail?: string, retryInMs?: number): StateEvent<S> {
  return { type: 'state', at, state, ...(detail !== undefined ? { detail } : {}), ...(retryInMs !== undefined ? { retryInMs } : {}) };
}
