import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../errors/api-error.ts';
import { parseImageView, viewId } from './image-view.ts';

test('the SDK thumbnailURL syntax parses in both modes', () => {
  assert.deepEqual(parseImageView('imageView/2/w/100/h/80/q/80/format/png'), { mode: 2, width: 100, height: 80, quality: 80, format: 'png' });
  assert.deepEqual(parseImageView('imageView/1/w/50/h/50/q/100/format/jpg'), { mode: 1, width: 50, height: 50, quality: 100, format: 'jpeg' });
  assert.deepEqual(parseImageView('imageView2/2/w/300'), { mode: 2, width: 300, quality: 100 });
  assert.deepEqual(parseImageView('imageView/1/h/40'), { mode: 1, width: 40, height: 40, quality: 100 });
  assert.equal(viewId(parseImageView('imageView/2/w/1/h/2/q/3/format/webp')), '2-1-2-3-webp');
});

test('bad parameters are invalidImageView, never a crash', () => {
  for (const q of ['imageView/3/w/10', 'imageView/2', 'imageView/2/w/0', 'imageView/2/w/99999', 'imageView/2/w/-1', 'imageView/2/w/1.5', 'imageView/2/w/10/q/0',
    'imageView/2/w/10/format/tiff', 'imageView/2/w/10/x/1', 'imageView/2/w', 'imageView/2/w/10/h/%', 'imageMogr/2/w/10', 'imageView/2/w/10/constructor/1']) {
    assert.throws(() => parseImageView(q), (e) => e instanceof ApiError && e.errorName === 'invalidImageView', q);
  }
});
