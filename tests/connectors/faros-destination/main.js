#!/usr/bin/env node
// Faros AI's destination (npm airbyte-faros-destination, pinned in package.json) as its Docker
// image runs it: the package's mainCommand(), the CDK's AirbyteDestinationRunner, parsing the
// command line (spec | check --config F | write --config F --catalog F [--dry-run]). Nothing of
// the destination is changed here.
'use strict';

const {mainCommand} = require('airbyte-faros-destination');

mainCommand()
  .parseAsync(process.argv)
  .catch((error) => {
    console.error(error);
    process.exit(1);
  });
