// ThumbHash placeholders: a ~25-byte hash the API gives with every photo,
// decoded here into a blurred preview that shows before any image arrives.

import { thumbHashToRGBA, thumbHashToDataURL } from '/map/vendor/thumbhash.js';

function bytes(b64) {
  return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
}

// placeholderURL is a PNG data URL of the hash's preview.
export function placeholderURL(b64) {
  return thumbHashToDataURL(bytes(b64));
}

// markerImage draws the preview as a round map marker `size` CSS pixels
// wide, with a white ring, at the screen's pixel ratio; the result goes to
// map.addImage.
export function markerImage(b64, size, ratio) {
  const { w, h, rgba } = thumbHashToRGBA(bytes(b64));
  const small = document.createElement('canvas');
  small.width = w;
  small.height = h;
  small.getContext('2d').putImageData(new ImageData(new Uint8ClampedArray(rgba), w, h), 0, 0);

  const px = Math.round(size * ratio);
  const ring = 2.5 * ratio;
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = px;
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  ctx.save();
  ctx.beginPath();
  ctx.arc(px / 2, px / 2, px / 2 - ring / 2, 0, 2 * Math.PI);
  ctx.clip();
  // Cover the circle: scale the short side to fit, centre the long one.
  const scale = px / Math.min(w, h);
  ctx.imageSmoothingQuality = 'high';
  ctx.drawImage(small, (px - w * scale) / 2, (px - h * scale) / 2, w * scale, h * scale);
  ctx.restore();
  ctx.beginPath();
  ctx.arc(px / 2, px / 2, px / 2 - ring / 2, 0, 2 * Math.PI);
  ctx.lineWidth = ring;
  ctx.strokeStyle = '#fff';
  ctx.stroke();
  return { image: ctx.getImageData(0, 0, px, px), pixelRatio: ratio };
}
