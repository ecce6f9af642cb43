// Per-record validation with ajv 8 + ajv-formats 3 on Node: compiled schemas, the fastest
// mainstream JSON Schema validator.
//
// usage: node ajv_validate.js CATALOG [TRANSCRIPT] [--parse-only]
//
// Streams the transcript (or stdin) line by line, JSON.parse's each line and validates the data of
// every RECORD with its stream's compiled schema (strict: false, as Airbyte schemas carry
// non-standard keywords; formats asserted by ajv-formats). Prints `records=N invalid=M`.
// --parse-only JSON.parse's every line and counts RECORDs without validating: Node's floor.
// Needs ajv and ajv-formats on NODE_PATH (run.sh installs them into bench/.node).
'use strict';

const fs = require('fs');
const readline = require('readline');

function parseArguments(argv) {
    const flags = argv.filter((arg) => arg.startsWith('--'));
    const positional = argv.filter((arg) => !arg.startsWith('--'));
    if (positional.length < 1 || positional.length > 2 || flags.some((f) => f !== '--parse-only')) {
        console.error('usage: node ajv_validate.js CATALOG [TRANSCRIPT] [--parse-only]');
        process.exit(2);
    }
    return {
        catalog: positional[0],
        transcript: positional[1],
        parseOnly: flags.includes('--parse-only'),
    };
}

function compileStreams(catalog) {
    const Ajv = require('ajv');
    const addFormats = require('ajv-formats');
    const ajv = new Ajv({strict: false});
    addFormats(ajv);
    const validators = new Map();
    for (const configured of catalog.streams) {
        validators.set(configured.stream.name, ajv.compile(configured.stream.json_schema));
    }
    return validators;
}

function main() {
    const args = parseArguments(process.argv.slice(2));
    const catalog = JSON.parse(fs.readFileSync(args.catalog, 'utf8'));
    const validators = args.parseOnly ? null : compileStreams(catalog);
    const input = args.transcript ? fs.createReadStream(args.transcript) : process.stdin;
    const lines = readline.createInterface({input, crlfDelay: Infinity});
    let records = 0;
    let invalid = 0;
    lines.on('line', (line) => {
        const message = JSON.parse(line);
        if (message.type !== 'RECORD') {
            return;
        }
        records++;
        if (validators && !validators.get(message.record.stream)(message.record.data)) {
            invalid++;
        }
    });
    lines.on('close', () => console.log(`records=${records} invalid=${invalid}`));
}

main();
