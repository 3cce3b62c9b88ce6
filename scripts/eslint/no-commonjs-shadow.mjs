// tsc compiles our sources to CommonJS: each file becomes the body of a
// function whose parameters are `exports`, `require`, `module`, `__filename`
// and `__dirname`. The code tsc emits reads `exports` (an exported const used
// in its own file becomes `exports.NAME`) and `require` (imports, also
// dynamic ones inside functions), so a local binding of either name, at any
// depth, silently takes their place in dist while Jest's swc transform
// renames it away: the tests pass on code that throws once shipped. The
// other three are only read by our own code, so they matter at the top of a
// file, where a let/const of a wrapper parameter's name does not even load.
const ANYWHERE = new Set(['exports', 'require']);
const TOP_LEVEL = new Set(['module', '__filename', '__dirname']);

export default {
  meta: {
    type: 'problem',
    docs: { description: 'forbid bindings that shadow the CommonJS module wrapper variables' },
    schema: [],
    messages: {
      shadow: "'{{name}}' shadows the CommonJS variable of the compiled module; pick another name.",
    },
  },
  create(context) {
    return {
      'Program:exit'(node) {
        const scopeManager = context.sourceCode.scopeManager;
        for (const scope of scopeManager.scopes) {
          for (const variable of scope.variables) {
            const top = scope.type === 'module' || scope.type === 'global';
            if (!ANYWHERE.has(variable.name) && !(top && TOP_LEVEL.has(variable.name))) continue;
            // Type-only names (interface module {}) emit nothing.
            const def = variable.defs.find((d) => d.type !== 'Type');
            if (!def) continue;
            context.report({ node: def.name ?? node, messageId: 'shadow', data: { name: variable.name } });
          }
        }
      },
    };
  },
};
