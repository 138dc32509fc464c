/** A few command lines per command, for its --help; the general help shows the first of each. */
import { INIT_DEFAULT_SPEC } from "../specs.js";

export const EXAMPLES: Record<string, [string, string][]> = {
  $0: [
    ["$0", "Generate the configuration's targets (mcp-task-gen.config.json, or package.json#mcp-task-gen)"],
    ["$0 --force", "The same, overwriting generated files edited by hand"],
  ],
  generate: [
    ["$0 generate --spec mcp-2025-11-25 --out src/tasks", "A built-in spec into src/tasks/"],
    ["$0 generate --spec ./my-tasks.yaml --out src/tasks --dry-run", "Your spec: list what would be written"],
    ["$0 generate --spec ./my-tasks.yaml --out src/tasks --handlers src/handlers --watch", "Regenerate on every save, keeping your handlers in step"],
  ],
  check: [
    ["$0 check", "In CI: the configuration's targets and handler files are up to date"],
    ["$0 check --spec ./my-tasks.yaml --out src/tasks", "One output folder"],
  ],
  validate: [
    ["$0 validate ./my-tasks.yaml", "Report a spec's mistakes, file:line:col"],
    ["$0 validate ./my-tasks.yaml --json --warn-as-error", "As JSON, failing on warnings too"],
  ],
  diff: [
    ["$0 diff mcp-2025-11-25 ext-tasks-2026-07-28", "What changed between two revisions, as Markdown"],
    ["$0 diff ./old.yaml ./my-tasks.yaml --json --fail-on any", "As JSON; exit 1 on any change"],
  ],
  init: [
    ["$0 init my-server", `A stdio MCP server for ${INIT_DEFAULT_SPEC}, the revision most clients speak`],
    ["$0 init my-server --spec ./my-tasks.yaml --transport http", "Your spec, over Streamable HTTP"],
  ],
  "list-specs": [["$0 list-specs", "The built-in specs"]],
  schema: [
    ["$0 schema --out mcp-task-spec.schema.json", "For your editor's YAML support"],
    ["$0 schema", "Print it"],
  ],
  codes: [["$0 codes", "Every diagnostic code, with a line on what it means"]],
  conform: [
    ["$0 conform --spec mcp-2025-11-25 --stdio 'node server.js'", "Test a stdio server against a spec"],
    ["$0 conform --spec ./my-tasks.yaml --url http://127.0.0.1:3000/mcp --runs 50", "An HTTP server, more runs"],
  ],
};
