import { UsageError, type Command } from '../command.ts';
import { configSchemaJson } from '../../tournament/config-schema.ts';

const usage = `usage: boardcast schema

Prints the JSON Schema of the config file (the one config/boardcast.schema.json holds), for
editors and other tools. The schema is defined once, in daemon/tournament/config-schema.ts: the
daemon validates configs against it and derives its types from it; \`npm run schema\` rewrites
config/boardcast.schema.json from it.`;

const schema: Command = {
  summary: 'print the JSON Schema of the config file',
  usage,
  async run(argv) {
    if (argv.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(argv[0])}`);
    process.stdout.write(configSchemaJson());
    return 0;
  },
};

export default schema;
