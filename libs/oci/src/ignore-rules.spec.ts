import { IgnoreRules, VENDOR_LAYER_PATTERNS, moduleLayerPatterns, parseIgnoreFile } from './ignore-rules';

describe('parseIgnoreFile', () => {
  it("drops comments and blank lines like Timoni's ReadIgnoreFile", () => {
    expect(parseIgnoreFile('# VCS\n.git/\n\n  \n*.md\n!README.md\r\n')).toEqual(['.git/', '*.md', '!README.md']);
  });
});

describe('IgnoreRules', () => {
  it('keeps only cue.mod in the vendor layer', () => {
    const rules = new IgnoreRules(VENDOR_LAYER_PATTERNS);
    expect(rules.ignores('cue.mod', true)).toBe(false);
    expect(rules.ignores('cue.mod/pkg/timoni.sh/core/v1alpha1/instance.cue', false)).toBe(false);
    expect(rules.ignores('timoni.cue', false)).toBe(true);
    expect(rules.ignores('templates/cm.cue', false)).toBe(true);
    expect(rules.ignores('templates', true)).toBe(true);
  });

  it('drops cue.mod from the module layer and applies the user rules', () => {
    const rules = new IgnoreRules(moduleLayerPatterns(['*.md', 'debug_values.cue', 'ignore/']));
    expect(rules.ignores('cue.mod', true)).toBe(true);
    expect(rules.ignores('cue.mod/module.cue', false)).toBe(true);
    expect(rules.ignores('README.md', false)).toBe(true);
    expect(rules.ignores('docs/x.md', false)).toBe(true);
    expect(rules.ignores('ignore/a.cue', false)).toBe(true);
    expect(rules.ignores('templates/ignore', false)).toBe(false);
    expect(rules.ignores('timoni.cue', false)).toBe(false);
  });

  it('lets the last matching rule win per path, as go-git does', () => {
    const rules = new IgnoreRules(['ignore/', '!ignore/keep.cue']);
    expect(rules.ignores('ignore', true)).toBe(true);
    expect(rules.ignores('ignore/drop.cue', false)).toBe(true);
    // git would keep this excluded; Timoni's matcher judges every path alone.
    expect(rules.ignores('ignore/keep.cue', false)).toBe(false);
  });

  it('is case sensitive and anchors leading slashes', () => {
    const rules = new IgnoreRules(['/build', 'Secret.cue']);
    expect(rules.ignores('build', true)).toBe(true);
    expect(rules.ignores('sub/build', true)).toBe(false);
    expect(rules.ignores('secret.cue', false)).toBe(false);
    expect(rules.ignores('Secret.cue', false)).toBe(true);
  });

  it('never ignores the root', () => {
    expect(new IgnoreRules(['*']).ignores('.', true)).toBe(false);
  });
});
