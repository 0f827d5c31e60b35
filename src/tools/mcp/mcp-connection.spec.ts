import { modelSafeToolName } from './mcp-connection';

describe('modelSafeToolName', () => {
  it('keeps a name the model APIs take as it is', () => {
    expect(modelSafeToolName('notes__read_note')).toBe('notes__read_note');
    expect(modelSafeToolName('web__send-mail')).toBe('web__send-mail');
  });

  it('replaces refused characters and keeps two names that differ only there apart', () => {
    const dotted = modelSafeToolName('fs__files.read');
    expect(dotted).toMatch(/^fs__files_read_[0-9a-f]{8}$/);
    expect(modelSafeToolName('fs__files_read')).toBe('fs__files_read');
    expect(modelSafeToolName('fs__files read')).not.toBe(dotted);
    expect(modelSafeToolName('kr__문서_검색')).toMatch(/^kr_{8}[0-9a-f]{8}$/);
  });

  it('cuts a name past 64 characters, distinct per original', () => {
    const a = modelSafeToolName(`srv__${'x'.repeat(70)}a`);
    const b = modelSafeToolName(`srv__${'x'.repeat(70)}b`);
    expect(a).toHaveLength(64);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
  });
});
