// The demo map: guide tiles from /v1/tiles over an offline basemap
// (Natural Earth country borders from world-atlas), clusters that open on
// click, a guide's photos on click, and a form that uploads a photo as a
// guest and pins a guide at the map's centre. Tiles are shared by every
// user, so the guides of authors the user blocks are hidden here, with a
// filter on the author_id every guide feature carries.

import * as maplibregl from '/map/vendor/maplibre-gl.mjs';
import * as api from '/map/api.js';
import { markerImage, placeholderURL } from '/map/thumbs.js';

const ACCENT = '#e4572e';
const GUIDE = '#2e86ab';
// A pinned guide is shown at least this close, where a cluster cell is
// about 250 m wide: the guide has its own marker unless others are that near.
const PIN_ZOOM = 15;
const KOREA = { center: [127.8, 36.1], zoom: 6.2 };

const $ = (id) => document.getElementById(id);

function tileURL(tag) {
  const q = tag ? `?tag=${encodeURIComponent(tag)}` : '';
  return `${location.origin}/v1/tiles/{z}/{x}/{y}.mvt${q}`;
}

async function basemap() {
  const r = await fetch('/map/vendor/countries-50m.json');
  if (!r.ok) throw new Error(`basemap: HTTP ${r.status}`);
  const topo = await r.json();
  const countries = topo.objects.countries;
  return {
    land: topojson.feature(topo, countries),
    borders: topojson.mesh(topo, countries, (a, b) => a !== b),
    coast: topojson.mesh(topo, countries, (a, b) => a === b),
  };
}

// A guide's marker shows its cover photo's ThumbHash; a cluster's shows
// that of its most-liked guide.
const hasPhoto = (prop) => ['all', ['has', prop], ['!=', ['get', prop], '']];
const photoIcon = (prop) => ['concat', 'th:', ['get', prop]];

function style(base) {
  const naturalEarth = '<a href="https://www.naturalearthdata.com/">Natural Earth</a>';
  return {
    version: 8,
    sources: {
      land: { type: 'geojson', data: base.land, attribution: naturalEarth },
      borders: { type: 'geojson', data: base.borders },
      coast: { type: 'geojson', data: base.coast },
      guides: { type: 'vector', tiles: [tileURL('')], minzoom: 0, maxzoom: 20 },
    },
    layers: [
      { id: 'water', type: 'background', paint: { 'background-color': '#c8dce8' } },
      { id: 'land', type: 'fill', source: 'land', paint: { 'fill-color': '#f4f1ea' } },
      {
        id: 'coast', type: 'line', source: 'coast',
        paint: { 'line-color': '#9fbccc', 'line-width': ['interpolate', ['linear'], ['zoom'], 2, 0.6, 10, 2] },
      },
      {
        id: 'borders', type: 'line', source: 'borders',
        paint: { 'line-color': '#b9a99a', 'line-width': 1.2, 'line-dasharray': [3, 2] },
      },
      {
        id: 'clusters', type: 'circle', source: 'guides', 'source-layer': 'clusters',
        paint: {
          'circle-color': ACCENT,
          'circle-radius': ['interpolate', ['linear'], ['get', 'count'], 2, 15, 100, 22, 1000, 30],
          'circle-stroke-color': '#fff', 'circle-stroke-width': 2, 'circle-opacity': 0.92,
        },
      },
      {
        id: 'cluster-photos', type: 'symbol', source: 'guides', 'source-layer': 'clusters',
        filter: hasPhoto('top_thumbhash'),
        layout: {
          'icon-image': photoIcon('top_thumbhash'),
          // As wide as the circle under it (radius 15 to 30).
          'icon-size': ['interpolate', ['linear'], ['get', 'count'], 2, 30 / 48, 100, 44 / 48, 1000, 60 / 48],
          'icon-allow-overlap': true, 'icon-ignore-placement': true,
        },
      },
      {
        id: 'cluster-counts', type: 'symbol', source: 'guides', 'source-layer': 'clusters',
        layout: {
          'text-field': ['to-string', ['get', 'count']],
          // No glyph server: MapLibre draws the text with the browser's
          // fonts, falling back from this name to sans-serif, in bold.
          'text-font': ['Noto Sans Bold'], 'text-size': 13,
          'text-allow-overlap': true, 'text-ignore-placement': true,
        },
        paint: {
          'text-color': '#fff', 'text-halo-color': 'rgba(40, 20, 10, .7)',
          'text-halo-width': ['case', hasPhoto('top_thumbhash'), 1.4, 0],
        },
      },
      {
        id: 'guides', type: 'circle', source: 'guides', 'source-layer': 'guides',
        paint: {
          'circle-color': GUIDE, 'circle-radius': 7,
          'circle-stroke-color': '#fff', 'circle-stroke-width': 2,
        },
      },
      {
        id: 'guide-photos', type: 'symbol', source: 'guides', 'source-layer': 'guides',
        filter: hasPhoto('thumbhash'),
        layout: {
          'icon-image': photoIcon('thumbhash'), 'icon-size': 30 / 48,
          'icon-allow-overlap': true, 'icon-ignore-placement': true,
        },
      },
      {
        id: 'guide-titles', type: 'symbol', source: 'guides', 'source-layer': 'guides', minzoom: 12,
        layout: {
          'text-field': ['get', 'title'], 'text-font': ['Noto Sans Regular'], 'text-size': 12,
          'text-anchor': 'top', 'text-offset': [0, 1.3], 'text-max-width': 10, 'text-optional': true,
        },
        paint: { 'text-color': '#22303a', 'text-halo-color': '#fff', 'text-halo-width': 1.5 },
      },
    ],
  };
}

// Marker images are drawn from ThumbHashes on demand, when a tile first
// names one.
function drawMarkers(map) {
  map.setMissingStyleImageResolver((id) => {
    if (!id.startsWith('th:') || map.hasImage(id)) return;
    try {
      const { image, pixelRatio } = markerImage(id.slice(3), 48, Math.max(2, devicePixelRatio));
      map.addImage(id, image, { pixelRatio });
    } catch {
      // A hash that does not decode: the circle under it still marks the spot.
    }
  });
}

function interact(map) {
  for (const layer of ['clusters', 'cluster-photos', 'guides', 'guide-photos']) {
    map.on('mouseenter', layer, () => { map.getCanvas().style.cursor = 'pointer'; });
    map.on('mouseleave', layer, () => { map.getCanvas().style.cursor = ''; });
  }
  map.on('click', (e) => {
    const [hit] = map.queryRenderedFeatures(e.point, { layers: ['guide-photos', 'guides', 'cluster-photos', 'clusters'] });
    if (!hit) return;
    if (hit.sourceLayer === 'clusters') {
      // expansion_zoom is where this cluster splits: zooming there opens it.
      const zoom = Number(hit.properties.expansion_zoom) || map.getZoom() + 2;
      map.easeTo({ center: hit.geometry.coordinates, zoom });
    } else {
      showGuide(hit.properties.id);
    }
  });
}

let shown = null;

async function showGuide(id) {
  shown = id;
  try {
    const g = await api.getGuide(id);
    if (shown === id) renderGuide(g); // else another click won
  } catch (err) {
    if (shown !== id) return;
    // Deleted since the tile was drawn, or the server is unavailable.
    renderGuide({ id, title: err.message, author: { display_name: '' }, like_count: 0, tags: [], body: '', media: [] });
    $('guide-meta').textContent = '';
  }
}

function renderGuide(g) {
  $('guide').hidden = false;
  $('guide').dataset.guideId = g.id;
  $('report').hidden = true;
  $('guide-report').hidden = false;
  reportStatus('', false);
  $('guide').dataset.authorId = g.author.id || '';
  $('guide-block').hidden = !g.author.id || g.author.id === api.me();
  $('guide-title').textContent = g.title;
  const likes = g.like_count === 1 ? '1 like' : `${g.like_count} likes`;
  $('guide-meta').textContent = `by ${g.author.display_name} · ${likes}`;
  $('guide-tags').replaceChildren(...g.tags.map((t) => {
    const s = document.createElement('span');
    s.textContent = t;
    return s;
  }));
  $('guide-body').textContent = g.body;
  $('guide-photos').replaceChildren(...g.media.map((m, _, all) => photo(m, all.length === 1)));
}

// photo shows the ThumbHash at once and the photo over it once loaded: the
// WebP variant the browser picks for the panel's width and the screen's
// pixel ratio (srcset), the JPEG thumbnail where WebP is not decoded.
function photo(m, only) {
  const div = document.createElement('div');
  div.className = only ? 'photo only' : 'photo';
  if (m.status !== 'ready' || !m.urls.thumbnail) {
    div.classList.add('pending');
    div.textContent = m.status === 'failed' ? 'photo failed' : 'processing…';
    return div;
  }
  div.style.aspectRatio = `${m.width} / ${m.height}`;
  if (m.thumbhash) div.style.backgroundImage = `url("${placeholderURL(m.thumbhash)}")`;
  const img = new Image();
  img.alt = '';
  img.decoding = 'async';
  img.addEventListener('load', () => img.classList.add('loaded'), { once: true });
  const picture = document.createElement('picture');
  const webp = srcset(m, 'webp');
  if (webp) {
    const source = document.createElement('source');
    source.type = 'image/webp';
    source.srcset = webp;
    // The panel is 300 px wide (a photo alone fills it, two share a row);
    // on a phone it spans the screen.
    source.sizes = only ? '(max-width: 640px) 100vw, 280px' : '(max-width: 640px) 50vw, 140px';
    picture.append(source);
  }
  img.src = m.urls.thumbnail;
  picture.append(img);
  div.append(picture);
  return div;
}

// srcset lists a photo's variants in one format by width, the marker crop
// left out (it is a square, not the photo). No variant is larger than the
// photo, so a small one has kinds of the same width: the first is kept.
function srcset(m, format) {
  const widths = new Set();
  return (m.urls.variants || [])
    .filter((v) => v.format === format && v.kind !== 'marker' && !widths.has(v.width) && widths.add(v.width))
    .map((v) => `${v.url} ${v.width}w`)
    .join(', ');
}

// The layers of single guides, and the filter each has of its own.
const GUIDE_LAYERS = { guides: null, 'guide-photos': hasPhoto('thumbhash'), 'guide-titles': null };

// hideBlocked hides the guides of every author the signed-in user blocks:
// a filter on author_id over each guide layer's own.
async function hideBlocked(map) {
  const ids = await api.blockedIDs();
  const hide = ids.length ? ['!', ['in', ['get', 'author_id'], ['literal', ids]]] : null;
  for (const [layer, own] of Object.entries(GUIDE_LAYERS)) {
    map.setFilter(layer, own && hide ? ['all', own, hide] : own || hide);
  }
  map.getContainer().dataset.blocked = String(ids.length);
}

function blockButton(map) {
  $('guide-block').addEventListener('click', async () => {
    const author = $('guide').dataset.authorId;
    if (!author) return;
    $('guide-block').disabled = true;
    try {
      await api.block(author);
      await hideBlocked(map);
      $('guide').hidden = true;
      shown = null;
      setStatus('Blocked: their guides are hidden from you.');
    } catch (err) {
      setStatus(err.message, true);
    } finally {
      $('guide-block').disabled = false;
    }
  });
}

function filterByTag(map) {
  let timer;
  $('tag').addEventListener('input', (e) => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      map.getSource('guides').setTiles([tileURL(e.target.value.trim().toLowerCase())]);
    }, 300);
  });
}

function setStatus(text, error = false) {
  $('pin-status').textContent = text;
  $('pin-status').classList.toggle('error', error);
}

function reloadTiles(map) {
  const source = map.getSource('guides');
  source.setTiles(source.tiles.slice());
}

function pinForm(map) {
  const form = $('pin');
  // The crosshair marks where the guide will go while the form is open.
  $('pin-box').addEventListener('toggle', (e) => { $('crosshair').hidden = !e.target.open; });
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const file = $('pin-file').files[0];
    if (!file) return;
    const at = map.getCenter(); // where the crosshair was when asked
    $('pin-submit').disabled = true;
    delete form.dataset.guideId;
    try {
      setStatus('Uploading the photo…');
      const media = await api.uploadPhoto(file);
      setStatus('Processing the photo…');
      await api.waitReady(media.id);
      setStatus('Pinning…');
      const tags = $('pin-tags').value.split(',').map((t) => t.trim()).filter(Boolean);
      const g = await api.createGuide({
        title: $('pin-title').value.trim(), lat: at.lat, lng: at.lng, media_ids: [media.id], tags,
      });
      form.dataset.guideId = g.id;
      form.reset();
      $('pin-box').open = false;
      renderGuide(g);
      setStatus(`Pinned “${g.title}”.`);
      map.easeTo({ center: [g.lng, g.lat], zoom: Math.max(map.getZoom(), PIN_ZOOM) });
      // Each write changes the version of the tiles it touches, which every
      // API process sees within a second: fetch them now, and again after.
      reloadTiles(map);
      setTimeout(() => reloadTiles(map), 1200);
    } catch (err) {
      setStatus(err.message, true);
    } finally {
      $('pin-submit').disabled = false;
    }
  });
}

async function main() {
  const base = await basemap();
  const map = new maplibregl.Map({
    container: 'map',
    style: style(base),
    ...KOREA,
    hash: true,
    maxZoom: 20,
    // Labels and photos appear at once when tiles are fetched again after
    // a pin or a tag, rather than fading in and out.
    fadeDuration: 0,
    attributionControl: { compact: false, customAttribution: 'guides © their authors' },
  });
  // Tile requests run in MapLibre's worker, out of the page's console:
  // say there what failed.
  map.on('error', (e) => console.error(`map: ${e.error?.message || e.error || 'error'}`));
  map.addControl(new maplibregl.NavigationControl({ showCompass: false }), 'top-right');
  map.addControl(new maplibregl.ScaleControl(), 'bottom-right');
  drawMarkers(map);
  interact(map);
  filterByTag(map);
  pinForm(map);
  blockButton(map);
  map.once('load', () => hideBlocked(map).catch((err) => console.error(`blocks: ${err.message}`)));
  $('guide-close').addEventListener('click', () => { $('guide').hidden = true; shown = null; });
  return map;
}

// For the browser console and the page's tests.
window.guidepost = { ready: main().then((map) => (window.guidepost.map = map)) };

// The Report button opens a form that sends the shown guide to the
// moderators (POST /v1/reports) as this tab's guest.
function reportStatus(text, error) {
  $('report-status').textContent = text;
  $('report-status').classList.toggle('error', error);
}

$('guide-report').addEventListener('click', () => {
  $('report').hidden = false;
  $('guide-report').hidden = true;
});

$('report').addEventListener('submit', async (e) => {
  e.preventDefault();
  const id = $('guide').dataset.guideId;
  $('report-submit').disabled = true;
  try {
    const r = await api.report('guide', id, $('report-reason').value, $('report-note').value.trim());
    if ($('guide').dataset.guideId !== id) return;
    $('report').hidden = true;
    $('report').dataset.reportId = r.id;
    reportStatus('Reported: thank you. A moderator will look at it.', false);
  } catch (err) {
    reportStatus(`Not reported: ${err.message}`, true);
  } finally {
    $('report-submit').disabled = false;
  }
});
