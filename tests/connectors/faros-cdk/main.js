#!/usr/bin/env node
// A small Airbyte source on Faros AI's TypeScript CDK (faros-airbyte-cdk, pinned in package.json),
// written in plain JavaScript the way Faros's production sources are written in TypeScript
// (faros-ai/airbyte-connectors, sources/*-source/src/index.ts and streams/*.ts): a source class
// extending AirbyteSourceBase, one class per stream extending AirbyteStreamBase, and
// AirbyteSourceRunner(logger, source).mainCommand() as the command line. Only the CDK decides
// what goes on stdout. Data: <data_dir>/pipelines.jsonl (full refresh) and
// <data_dir>/builds.jsonl (incremental on updated_at, epoch ms), then the same files in the
// optional <extra_data_dir>. See README.md beside it.
'use strict';

const fs = require('fs');
const path = require('path');
const readline = require('readline');
const {
  AirbyteSourceBase,
  AirbyteSourceLogger,
  AirbyteSourceRunner,
  AirbyteSpec,
  AirbyteStreamBase,
  SyncMode,
} = require('faros-airbyte-cdk');
const VError = require('verror');

// The rows of one stream: <data_dir>/<name>.jsonl, then <extra_data_dir>/<name>.jsonl (rows added
// later, e.g. by conform's inject command).
async function* readStreamRows(config, name) {
  for (const folder of [config.data_dir, config.extra_data_dir]) {
    if (folder) {
      yield* readJsonLines(path.join(folder, `${name}.jsonl`));
    }
  }
}

async function* readJsonLines(file) {
  if (!fs.existsSync(file)) {
    return;
  }
  const lines = readline.createInterface({input: fs.createReadStream(file), crlfDelay: Infinity});
  for await (const line of lines) {
    if (line.trim()) {
      yield JSON.parse(line);
    }
  }
}

class Pipelines extends AirbyteStreamBase {
  constructor(config, logger) {
    super(logger);
    this.config = config;
  }

  getJsonSchema() {
    return require('./resources/schemas/pipelines.json');
  }

  get primaryKey() {
    return 'uid';
  }

  async *readRecords() {
    yield* readStreamRows(this.config, 'pipelines');
  }
}

class Builds extends AirbyteStreamBase {
  constructor(config, logger) {
    super(logger);
    this.config = config;
  }

  getJsonSchema() {
    return require('./resources/schemas/builds.json');
  }

  get primaryKey() {
    return 'uid';
  }

  get cursorField() {
    return 'updated_at';
  }

  get stateCheckpointInterval() {
    return 5;
  }

  async *readRecords(syncMode, cursorField, streamSlice, streamState) {
    const cutoff = syncMode === SyncMode.INCREMENTAL ? streamState?.cutoff ?? 0 : 0;
    const builds = [];
    for await (const build of readStreamRows(this.config, 'builds')) {
      if (build.updated_at > cutoff) {
        builds.push(build);
      }
    }
    // The API returns builds oldest first, as checkpointing needs.
    builds.sort((a, b) => a.updated_at - b.updated_at);
    this.logger.debug(`Fetched ${builds.length} builds newer than ${cutoff}`);
    yield* builds;
  }

  getUpdatedState(currentStreamState, latestRecord) {
    return {cutoff: Math.max(currentStreamState?.cutoff ?? 0, latestRecord.updated_at)};
  }
}

class FarosCdkTestSource extends AirbyteSourceBase {
  get type() {
    return 'conform-faros-cdk-test';
  }

  async spec() {
    return new AirbyteSpec(require('./resources/spec.json'));
  }

  async checkConnection(config) {
    if (typeof config.data_dir !== 'string' || !fs.existsSync(config.data_dir)) {
      return [false, new VError('Data folder %s does not exist', String(config.data_dir))];
    }
    return [true, undefined];
  }

  streams(config) {
    return [new Pipelines(config, this.logger), new Builds(config, this.logger)];
  }
}

function mainCommand() {
  const logger = new AirbyteSourceLogger();
  const source = new FarosCdkTestSource(logger);
  return new AirbyteSourceRunner(logger, source).mainCommand();
}

module.exports = {mainCommand};

if (require.main === module) {
  // As Faros's bin/main scripts do.
  mainCommand()
    .parseAsync(process.argv)
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
}
