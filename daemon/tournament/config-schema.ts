import { Type, type Static, type TSchema } from '@sinclair/typebox';

// The config's one schema: ajv validates a file against it, the TypeScript type of a validated
// config is derived from it (`RawConfig`), and config/boardcast.schema.json (for editors) is
// written from it by `npm run schema` (a test fails when the file is out of date).
// `x-message` is what a person is told when the value under it is wrong (config.ts reads it).

/** A string that must be one of `values` (kept as JSON Schema `enum`, so errors list the choices). */
function oneOf<T extends string>(values: readonly T[], options: Record<string, unknown> = {}): TSchema & { static: T } {
  return Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });
}

const TimeControlObject = Type.Object(
  {
    baseMinutes: Type.Number({ exclusiveMinimum: 0 }),
    incrementSeconds: Type.Optional(Type.Integer({ minimum: 0 })),
    movesToSecondPeriod: Type.Optional(Type.Integer({ minimum: 1 })),
    secondPeriodMinutes: Type.Optional(Type.Number({ minimum: 0 })),
  },
  { additionalProperties: false },
);

/** A table's board: a device path, COMn, or the 5-digit serial number printed under the board. */
export const BOARD_PATTERN = '^(/[^\\s]+|COM\\d+|\\d{5})$';
export const BOARD_MESSAGE = 'must be an absolute device path (/dev/ttyUSB0, a pseudo-terminal such as /tmp/boards/board1), COMn, or a 5-digit serial number';

const Table = Type.Object(
  {
    number: Type.Integer({ minimum: 1, maximum: 999 }),
    board: Type.String({ pattern: BOARD_PATTERN, 'x-message': BOARD_MESSAGE }),
    bus: Type.Optional(
      Type.String({
        pattern: '^(/[^\\s]+|COM\\d+)$',
        'x-message': 'must be the absolute device path of the DGT bus line the board hangs on (/dev/ttyUSB2, a pseudo-terminal such as /tmp/boards/bus1) or COMn',
      }),
    ),
    whiteOnClock: Type.Optional(oneOf(['left', 'right'] as const, { default: 'left' })),
  },
  { additionalProperties: false },
);

export const CONFIG_SCHEMA = Type.Object(
  {
    $schema: Type.Optional(Type.String()),
    event: Type.Object(
      {
        name: Type.String({ minLength: 1, 'x-message': 'must be a non-empty event name' }),
        site: Type.Optional(Type.String({ default: '' })),
        federation: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$', 'x-message': 'must be a three-letter federation code such as "SLO"' })),
        chiefArbiter: Type.Optional(Type.String()),
      },
      { additionalProperties: false },
    ),
    rounds: Type.Object(
      {
        count: Type.Integer({ minimum: 1, maximum: 99 }),
        dates: Type.Optional(Type.Array(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', 'x-message': 'must be an ISO date YYYY-MM-DD' }), { default: [] })),
        start: Type.Optional(
          Type.Unsafe<'board' | 'arbiter'>({
            enum: ['board', 'arbiter'],
            default: 'board',
            'x-message': 'must be "board" (a table\'s next game opens when its board is set up again after a game) or "arbiter" (games open when the arbiter starts the round)',
          }),
        ),
      },
      { additionalProperties: false },
    ),
    timeControl: Type.Union([Type.String({ pattern: '^\\d+(\\.\\d+)?\\+\\d+$' }), TimeControlObject], {
      'x-message': 'must be FIDE-style "90+30" (minutes + seconds increment) or {"baseMinutes": 90, "incrementSeconds": 30}',
    }),
    rules: Type.Optional(
      Type.Object(
        {
          edition: Type.Optional(oneOf(['2018', '2009', '1997'] as const, { default: '2018' })),
          category: Type.Optional(oneOf(['standard', 'rapid', 'blitz'] as const, { default: 'standard' })),
          chess960: Type.Optional(Type.Boolean({ default: false })),
        },
        { additionalProperties: false, default: {} },
      ),
    ),
    tables: Type.Optional(Type.Array(Table, { default: [] })),
    httpPort: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535, default: 8080 })),
    httpHost: Type.Optional(Type.String({ minLength: 1, default: '127.0.0.1' })),
    dataDir: Type.Optional(Type.String({ minLength: 1, default: './data' })),
    feed: Type.Optional(
      Type.Object(
        {
          maxConnections: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 20_000 })),
          maxConnectionsPerIp: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 500 })),
        },
        { additionalProperties: false, default: {} },
      ),
    ),
    broadcast: Type.Optional(
      Type.Object(
        {
          delaySeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 86_400, default: 0, 'x-message': 'must be a whole number of seconds from 0 (live) to 86400' })),
        },
        { additionalProperties: false, default: {} },
      ),
    ),
    store: Type.Optional(
      Type.Object(
        {
          verifyAfterStart: Type.Optional(Type.Boolean({ default: true, 'x-message': 'must be true or false' })),
          walCheckpointMinutes: Type.Optional(Type.Integer({ minimum: 0, maximum: 1440, default: 5, 'x-message': "must be a whole number of minutes from 0 (SQLite's own checkpoints only) to 1440" })),
          liveSnapshotSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 3600, default: 30, 'x-message': 'must be a whole number of seconds from 0 (at a clean stop only) to 3600' })),
        },
        { additionalProperties: false, default: {} },
      ),
    ),
    backup: Type.Optional(
      Type.Object(
        {
          everyMinutes: Type.Optional(Type.Integer({ minimum: 0, maximum: 1440, default: 15 })),
          keep: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 12 })),
        },
        { additionalProperties: false, default: {} },
      ),
    ),
    access: Type.Optional(
      Type.Object(
        {
          accounts: Type.Optional(
            Type.Array(
              Type.Object(
                {
                  name: Type.String({
                    minLength: 1,
                    maxLength: 100,
                    pattern: '^\\S(.*\\S)?$',
                    'x-message': 'must be a non-empty name without leading or trailing spaces (it is what the official types to log in, and what the audit trail records)',
                  }),
                  role: oneOf(['arbiter', 'organiser'] as const, { 'x-message': 'must be "arbiter" (decides on games) or "organiser" (runs the hall: rounds)' }),
                  password: Type.String({ minLength: 1, 'x-message': 'must be a hash printed by `boardcast hash-password`' }),
                },
                { additionalProperties: false },
              ),
              { default: [] },
            ),
          ),
          sessionHours: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 720, default: 12, 'x-message': 'must be a number of hours above 0, at most 720' })),
          secureCookie: Type.Optional(Type.Boolean({ default: false })),
        },
        { additionalProperties: false, default: {} },
      ),
    ),
    outputs: Type.Optional(
      Type.Object(
        {
          liveChessApi: Type.Optional(
            Type.Object(
              {
                port: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535, default: 1982 })),
                host: Type.Optional(Type.String({ minLength: 1, default: '127.0.0.1' })),
              },
              { additionalProperties: false },
            ),
          ),
          lichessPush: Type.Optional(
            Type.Object(
              {
                rounds: Type.Array(
                  Type.Object(
                    {
                      round: Type.Integer({ minimum: 1, maximum: 99 }),
                      roundId: Type.String({ pattern: '^[A-Za-z0-9]{8}$', 'x-message': "must be the 8-character lichess round id (the last part of the round's URL)" }),
                    },
                    { additionalProperties: false },
                  ),
                  { minItems: 1 },
                ),
                token: Type.Optional(Type.String({ pattern: '^\\S+$', 'x-message': 'must be a lichess API token (no spaces); or leave it out and set BOARDCAST_LICHESS_TOKEN' })),
                baseUrl: Type.Optional(Type.String({ pattern: '^https?://[^\\s/]+(/\\S*)?$', default: 'https://lichess.org', 'x-message': 'must be an http(s) URL such as "https://lichess.org"' })),
              },
              { additionalProperties: false },
            ),
          ),
          pgnFolder: Type.Optional(
            Type.Object(
              {
                path: Type.String({ minLength: 1, 'x-message': 'must be the folder to write the PGN files into (relative to the config file)' }),
              },
              { additionalProperties: false },
            ),
          ),
        },
        { additionalProperties: false, default: {} },
      ),
    ),
    emulate: Type.Optional(
      Type.Object(
        {
          count: Type.Integer({ minimum: 1, maximum: 1000 }),
          games: Type.Optional(Type.String({ minLength: 1, default: 'random', 'x-message': 'must be "random" or a path to a PGN file or directory' })),
          seed: Type.Optional(Type.Integer({ default: 1 })),
          noise: Type.Optional(Type.String({ minLength: 1, default: 'clean' })),
          serialBase: Type.Optional(Type.Integer({ minimum: 10000, maximum: 99999, default: 10001 })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: 'https://boardcast.invalid/boardcast.schema.json',
    title: 'boardcast configuration',
    description: 'One tournament hall: the event, its rounds and rules, the tables with their boards, and where the daemon serves and stores. config/README.md documents every key.',
    additionalProperties: false,
  },
);

/** A config as written in the file, after ajv has validated it and filled in the defaults. */
export type RawConfig = Static<typeof CONFIG_SCHEMA>;

/** config/boardcast.schema.json as `npm run schema` writes it. */
export function configSchemaJson(): string {
  return `${JSON.stringify(CONFIG_SCHEMA, null, 2)}\n`;
}
