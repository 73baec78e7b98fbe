// Where the host finds an external-data file the core names (src/host/external_file.ts), on a real
// folder: a regular file beside the model or in a subfolder is found; a file that is a symbolic link,
// or whose path goes through one (a linked folder), is refused with the CLI's unsafe_external_path,
// wherever the link points (outside the folder, inside it, nowhere); a missing file is not found.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { CoreRequestError } from '../../web/src/protocol/connection';
import { externalFileIn } from '../src/host/external_file';
import { linkAwareDisk } from './link_aware_disk';

const top = mkdtempSync(path.join(tmpdir(), 'vq-external-file-'));
const models = path.join(top, 'models'), outside = path.join(top, 'outside');
mkdirSync(path.join(models, 'weights'), { recursive: true });
mkdirSync(outside);
writeFileSync(path.join(models, 'model.weights'), 'w');
writeFileSync(path.join(models, 'weights', 'conv.bin'), 'w');
writeFileSync(path.join(outside, 'secret'), 's');
symlinkSync(path.join(outside, 'secret'), path.join(models, 'linked.weights'));
symlinkSync(path.join(models, 'model.weights'), path.join(models, 'inside.weights'));
symlinkSync(path.join(top, 'nothing'), path.join(models, 'dangling.weights'));
symlinkSync(outside, path.join(models, 'linked-folder'));
after(() => rmSync(top, { recursive: true, force: true }));

const find = (name: string) => externalFileIn(linkAwareDisk, models, name);

/** The refusal the CLI gives a path that leaves the model's folder. */
async function assertRefused(name: string, link: string) {
  await assert.rejects(find(name), (e: unknown) => {
    assert.ok(e instanceof CoreRequestError);
    assert.equal(e.code, 'unsafe_external_path');
    assert.equal(e.message, `external data file '${name}' is refused: ${link} is a symbolic link, which may resolve outside the model's folder (a model may only refer to files inside its own folder)`);
    return true;
  });
}

test('a regular file beside the model, or in a folder beside it, is found', async () => {
  assert.equal(await find('model.weights'), path.join(models, 'model.weights'));
  assert.equal(await find('weights/conv.bin'), path.join(models, 'weights', 'conv.bin'));
});

test('an external-data file that is a symbolic link is refused: unsafe_external_path', async () => {
  await assertRefused('linked.weights', 'it');
  await assertRefused('inside.weights', 'it');  // even to a file inside the folder: where a link leads is not checked
  await assertRefused('dangling.weights', 'it');
});

test('a path through a linked folder is refused, naming the link', async () => {
  await assertRefused('linked-folder/secret', "'linked-folder'");
});

test('a missing file, a folder, and a path the core would refuse are not found', async () => {
  assert.equal(await find('nothere.bin'), null);
  assert.equal(await find('weights'), null);
  assert.equal(await find('weights/nothere/conv.bin'), null);
  assert.equal(await find('../outside/secret'), null);
  assert.equal(await find('/etc/passwd'), null);
});
