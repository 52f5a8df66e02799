/**
 * The tools of one run, by name, in registration order (the order the provider sees them in, so
 * requests, and their hashes on the tape, stay stable).
 */
import { InvalidOptionError } from '../core/errors.js';
import type { ToolDefinition } from '../core/messages.js';
import type { ToolSpec } from '../core/tools.js';
import { createBuiltinTool, isBuiltinToolName, BUILTIN_TOOL_NAMES } from './builtins.js';
import type { SandboxSetting } from './sandbox.js';
import { specOf, type Tool } from './tool.js';

/** How to build a registry from config. */
export interface RegistryOptions {
  /** Tools loaded from custom modules; selectable by name like the built-ins. */
  custom?: readonly Tool[];
  /** Per-tool time limits (ms) that replace the defaults, e.g. `{ exec_shell: 120000 }`. */
  timeouts?: Readonly<Record<string, number>>;
  /** How exec_shell is confined (config `sandbox`); default: sandboxed without network. */
  sandbox?: SandboxSetting;
}

/** A name → tool map that keeps registration order. */
export class ToolRegistry {
  private readonly tools = new Map<string, Tool>();

  /**
   * A registry holding the tools named in `names` (config `tools`), in that order, drawn from the
   * built-ins and `options.custom`. An unknown name is an InvalidOptionError that lists what is available.
   */
  static fromNames(names: readonly string[], options: RegistryOptions = {}): ToolRegistry {
    const custom = new Map<string, Tool>();
    for (const tool of options.custom ?? []) {
      // A custom tool may not silently replace a built-in or another custom tool: its semantics would change unseen.
      if (isBuiltinToolName(tool.name)) throw new InvalidOptionError(`custom tool '${tool.name}' has the name of a built-in tool`);
      if (custom.has(tool.name)) throw new InvalidOptionError(`custom tool '${tool.name}' is defined more than once`);
      custom.set(tool.name, tool);
    }
    const registry = new ToolRegistry();
    for (const name of names) {
      const timeoutMs = options.timeouts?.[name];
      const customTool = custom.get(name);
      if (customTool !== undefined) {
        registry.register(timeoutMs === undefined ? customTool : { ...customTool, timeoutMs });
      } else if (isBuiltinToolName(name)) {
        registry.register(
          createBuiltinTool(name, {
            ...(timeoutMs === undefined ? {} : { timeoutMs }),
            ...(options.sandbox === undefined ? {} : { sandbox: options.sandbox }),
          }),
        );
      } else {
        const available = [...BUILTIN_TOOL_NAMES, ...custom.keys()].join(', ');
        throw new InvalidOptionError(`unknown tool '${name}' in config 'tools'`, { hint: `available tools: ${available}` });
      }
    }
    return registry;
  }

  /** Add a tool. A second tool with the same name is an InvalidOptionError (two definitions would be ambiguous). */
  register(tool: Tool): this {
    if (this.tools.has(tool.name)) throw new InvalidOptionError(`tool '${tool.name}' is defined more than once`);
    this.tools.set(tool.name, tool);
    return this;
  }

  /** The tool called `name`, if registered. */
  get(name: string): Tool | undefined {
    return this.tools.get(name);
  }

  /** True when a tool called `name` is registered. */
  has(name: string): boolean {
    return this.tools.has(name);
  }

  /** The spec of `name` (without `run`), or undefined on a registry miss (see REGISTRY_MISS_SEMANTICS). */
  spec(name: string): ToolSpec | undefined {
    const tool = this.tools.get(name);
    return tool === undefined ? undefined : specOf(tool);
  }

  /** Every tool, in registration order. */
  list(): Tool[] {
    return [...this.tools.values()];
  }

  /** Registered names, in registration order. */
  names(): string[] {
    return [...this.tools.keys()];
  }

  /** The `tools` field of a provider request. */
  definitions(): ToolDefinition[] {
    return this.list().map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }));
  }
}
