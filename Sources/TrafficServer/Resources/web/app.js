// The swift-traffic web map: the server's basemap, flow and incident tiles on Leaflet,
// incident details on click, routes on the live traffic ("Route from here" / "to here" in
// a click's popup), a search around the map's centre, live refresh from the incident event
// stream and every 60 seconds.
(function () {
  'use strict';

  const LANGUAGES = ['en-US', 'de-DE', 'fr-FR', 'es-ES', 'it-IT', 'nl-NL', 'pl-PL'];
  const REFRESH_MS = 60000;
  // Popup labels and incident type names by language, from words.json (the descriptions
  // come from the server, worded in the language asked for); English until it loads.
  let WORDS = { en: { from: 'From', until: 'Until', where: 'Where', closed: 'Road closed',
    types: { other: 'Incident' } } };

  function words() { return WORDS[state.language.slice(0, 2)] || WORDS.en; }

  function typeName(details) {
    return text(details.typeDescription) || words().types[details.type] || details.type ||
      words().types.other;
  }
  const pageParameters = new URLSearchParams(window.location.search);
  const apiKey = pageParameters.get('apiKey');

  const state = {
    version: Date.now(),
    showFlow: true,
    freeFlow: true,
    showIncidents: true,
    language: chooseLanguage(),
    loaded: {},
    changes: 0,
    info: null,
    stream: null,
    streamBounds: null,
    highlight: null,
    lastPopupText: '',
    ready: false,
  };

  if (!window.L) {
    fatal('Leaflet did not load from /leaflet/leaflet.js. Install Debian\u2019s libjs-leaflet ' +
      'package on the server (apt-get install libjs-leaflet) and reload.');
    return;
  }

  function chooseLanguage() {
    const asked = pageParameters.get('lang');
    if (asked && LANGUAGES.includes(asked)) return asked;
    try {
      const saved = window.localStorage.getItem('traffic.language');
      if (saved && LANGUAGES.includes(saved)) return saved;
    } catch (e) { /* storage may be disabled */ }
    const browser = (navigator.language || 'en-US');
    return LANGUAGES.find((l) => l === browser) ||
      LANGUAGES.find((l) => l.slice(0, 2) === browser.slice(0, 2)) || 'en-US';
  }

  function fatal(message) {
    const box = document.createElement('div');
    box.className = 'fatal';
    box.textContent = message;
    document.body.prepend(box);
  }

  /// A server URL with the page's API key, if it was given one.
  function withKey(path) {
    if (!apiKey) return path;
    return path + (path.includes('?') ? '&' : '?') + 'apiKey=' + encodeURIComponent(apiKey);
  }

  async function getJSON(path) {
    const response = await fetch(withKey(path));
    const body = await response.json().catch(() => null);
    if (!response.ok) {
      const detail = body && (body.cause || body.detail || body.title) || response.statusText;
      throw new Error(response.status + ' ' + detail);
    }
    return body;
  }

  function escapeHTML(text) {
    return String(text == null ? '' : text).replace(/[&<>"']/g, (c) => ({
      '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;',
    }[c]));
  }

  function coordinate(value) { return value.toFixed(6); }

  // MARK: Map and layers

  const map = L.map('map', { zoomControl: true, maxZoom: 20, worldCopyJump: true });
  const scale = window.devicePixelRatio > 1.5 ? 2 : 1;

  function tileURL(name) {
    let query = 'scale=' + scale;
    if (name === 'flow') query += '&mode=' + (state.freeFlow ? 'withFreeFlow' : 'withoutFreeFlow');
    if (name !== 'base') query += '&v=' + state.version;
    return withKey('/tiles/' + name + '/{z}/{x}/{y}.png?' + query);
  }

  const zIndex = { base: 1, flow: 2, incidents: 3 };
  const layers = {};

  function makeLayer(name) {
    const layer = L.tileLayer(tileURL(name), {
      maxZoom: 20, maxNativeZoom: 20, zIndex: zIndex[name], tileSize: 256,
      attribution: name === 'base' ? 'Roads and traffic: swift-traffic' : undefined,
    });
    state.loaded[name] = false;
    layer.on('loading', () => { state.loaded[name] = false; });
    layer.on('load', () => { state.loaded[name] = true; });
    return layer;
  }

  layers.base = makeLayer('base').addTo(map);
  layers.flow = makeLayer('flow').addTo(map);
  layers.incidents = makeLayer('incidents').addTo(map);

  /// Replaces a traffic layer with a fresh one and removes the old one once the new tiles
  /// are in, so that a refresh does not flash.
  function reloadLayer(name, visible) {
    const old = layers[name];
    const fresh = makeLayer(name);
    layers[name] = fresh;
    if (!visible) {
      map.removeLayer(old);
      return;
    }
    if (map.hasLayer(old)) {
      fresh.once('load', () => map.removeLayer(old));
      setTimeout(() => map.removeLayer(old), 10000);
    }
    fresh.addTo(map);
  }

  function refreshTraffic() {
    state.version = Date.now();
    reloadLayer('flow', state.showFlow);
    reloadLayer('incidents', state.showIncidents);
    updateStatus();
    // The route follows the traffic: asked again with the flow.
    if (state.routeFrom && state.routeTo) showRoute();
  }

  // MARK: Controls

  const flowBox = document.getElementById('show-flow');
  const freeFlowBox = document.getElementById('show-free-flow');
  const incidentsBox = document.getElementById('show-incidents');
  const languageSelect = document.getElementById('language');

  flowBox.addEventListener('change', () => {
    state.showFlow = flowBox.checked;
    freeFlowBox.disabled = !state.showFlow;
    if (state.showFlow) layers.flow.addTo(map); else map.removeLayer(layers.flow);
  });
  freeFlowBox.addEventListener('change', () => {
    state.freeFlow = freeFlowBox.checked;
    reloadLayer('flow', state.showFlow);
  });
  incidentsBox.addEventListener('change', () => {
    state.showIncidents = incidentsBox.checked;
    if (state.showIncidents) layers.incidents.addTo(map); else map.removeLayer(layers.incidents);
  });
  languageSelect.value = state.language;
  languageSelect.addEventListener('change', () => {
    state.language = languageSelect.value;
    try { window.localStorage.setItem('traffic.language', state.language); } catch (e) { }
    if (state.stream) openStream(true);
    if (document.getElementById('results').children.length) searchAround();
  });
  document.getElementById('search').addEventListener('click', () => searchAround());

  function updateStatus(text) {
    const status = document.getElementById('status');
    const parts = [];
    if (state.info) parts.push(state.info.incidents + ' incidents');
    if (state.changes) parts.push(state.changes + ' live changes');
    parts.push('tiles ' + new Date(state.version).toLocaleTimeString(state.language));
    if (text) parts.push(text);
    status.textContent = parts.join(' · ');
  }

  // MARK: Geometry helpers

  function shapeLines(result) {
    const links = (result.location && result.location.shape && result.location.shape.links) || [];
    return links.map((link) => (link.points || []).map((p) => [p.lat, p.lng]))
      .filter((line) => line.length > 0);
  }

  /// Metres from a place to the nearest point of an incident's shape (nearest points found
  /// on the map's projection at zoom 18, distances measured on the sphere).
  function distanceTo(result, latlng) {
    const zoom = 18;
    const p = map.project(latlng, zoom);
    let best = Infinity;
    for (const line of shapeLines(result)) {
      for (let i = 0; i < line.length; i++) {
        const a = map.project(line[i], zoom);
        const b = i + 1 < line.length ? map.project(line[i + 1], zoom) : a;
        const dx = b.x - a.x, dy = b.y - a.y;
        const length2 = dx * dx + dy * dy;
        const t = length2 > 0
          ? Math.max(0, Math.min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / length2)) : 0;
        const nearest = map.unproject(L.point(a.x + t * dx, a.y + t * dy), zoom);
        best = Math.min(best, map.distance(latlng, nearest));
      }
    }
    return best;
  }

  /// A search radius of about 16 pixels at the current zoom, in metres.
  function clickRadius(latlng) {
    const metersPerPixel = 40075016.686 * Math.cos(latlng.lat * Math.PI / 180) /
      (256 * Math.pow(2, map.getZoom()));
    return Math.max(10, Math.min(50000, Math.round(16 * metersPerPixel)));
  }

  function formatDistance(meters) {
    if (!isFinite(meters)) return '';
    return meters < 1000 ? Math.round(meters) + ' m' : (meters / 1000).toFixed(1) + ' km';
  }

  function text(value) {
    if (value == null) return '';
    return typeof value === 'string' ? value : (value.value || '');
  }

  // MARK: Incident details

  function highlight(result) {
    if (state.highlight) map.removeLayer(state.highlight);
    const lines = shapeLines(result);
    const single = lines.length === 1 && lines[0].length === 1 ||
      lines.every((line) => line.every((p) => p[0] === line[0][0] && p[1] === line[0][1]));
    state.highlight = single && lines.length
      ? L.circleMarker(lines[0][0], { radius: 14, color: '#2962ff', weight: 3, fill: false })
      : L.polyline(lines, { color: '#2962ff', weight: 8, opacity: 0.45 });
    state.highlight.addTo(map);
  }

  function popupHTML(result) {
    const details = result.incidentDetails || {};
    const type = typeName(details);
    const w = words();
    const impact = details.criticality || '';
    const when = (value) => value ? new Date(value).toLocaleString(state.language) : '';
    const summary = text(details.summary);
    const description = text(details.description);
    let html = '<div class="incident-popup" data-original-id="' +
      escapeHTML(details.originalId) + '">';
    html += '<h3>' + escapeHTML(type) + (impact
      ? '<span class="impact ' + escapeHTML(impact) + '">' + escapeHTML(impact) + '</span>'
      : '') + '</h3>';
    html += '<p class="description">' + escapeHTML(description) + '</p>';
    if (summary && summary !== description) {
      html += '<p class="summary">' + escapeHTML(summary) + '</p>';
    }
    if (details.roadClosed) html += '<p class="closed">' + escapeHTML(w.closed) + '</p>';
    html += '<dl>';
    if (result.location && result.location.description) {
      html += '<dt>' + escapeHTML(w.where) + '</dt><dd>' + escapeHTML(result.location.description) + '</dd>';
    }
    if (details.startTime) {
      html += '<dt>' + escapeHTML(w.from) + '</dt><dd>' + escapeHTML(when(details.startTime)) + '</dd>';
    }
    if (details.endTime) {
      html += '<dt>' + escapeHTML(w.until) + '</dt><dd>' + escapeHTML(when(details.endTime)) + '</dd>';
    }
    html += '<dt>Id</dt><dd>' + escapeHTML(details.originalId) + '</dd>';
    html += '</dl></div>';
    return html;
  }

  function openPopup(latlng, html) {
    const actions = '<p class="route-actions"><button type="button" data-route="from">' +
      'Route from here</button> <button type="button" data-route="to">Route to here</button></p>';
    const popup = L.popup({ maxWidth: 320 }).setLatLng(latlng).setContent(html + actions)
      .openOn(map);
    const element = popup.getElement();
    state.lastPopupText = element ? element.innerText : '';
    if (element) {
      element.querySelectorAll('[data-route]').forEach((button) => {
        button.addEventListener('click', () => {
          if (button.dataset.route === 'from') state.routeFrom = latlng; else state.routeTo = latlng;
          map.closePopup();
          showRoute();
        });
      });
    }
    return popup;
  }

  /// Looks the incident up by its original id in the chosen language and shows it.
  async function showIncident(originalId, latlng) {
    // `stream` is the event stream's path, and `.` or `..` a step the browser resolves
    // away (even percent-encoded): those ids are asked in v7's namespace form.
    const reached = originalId === 'stream' || /^\.+$/.test(originalId)
      ? 'here:traffic:incident:' + originalId : originalId;
    const result = await getJSON('/v7/incidents/' + encodeURIComponent(reached) +
      '?lang=' + encodeURIComponent(state.language));
    highlight(result);
    openPopup(latlng, popupHTML(result));
    return result;
  }

  async function showFlow(latlng, radius) {
    const body = await getJSON('/v7/flow?in=circle:' + coordinate(latlng.lat) + ',' +
      coordinate(latlng.lng) + ';r=' + radius + '&locationReferencing=shape');
    const results = (body.results || []).map((r) => ({ r, d: distanceTo(r, latlng) }))
      .sort((a, b) => a.d - b.d);
    if (!results.length) {
      openPopup(latlng, '<div class="incident-popup"><p>No incident or traffic here.</p></div>');
      return;
    }
    const flow = results[0].r.currentFlow || {};
    const kmh = (v) => v == null ? '?' : Math.round(v * 3.6) + ' km/h';
    openPopup(latlng, '<div class="incident-popup"><h3>' +
      escapeHTML(results[0].r.location.description || 'Road') + '</h3><dl>' +
      '<dt>Speed</dt><dd>' + kmh(flow.speed) + '</dd>' +
      '<dt>Free</dt><dd>' + kmh(flow.freeFlow) + '</dd>' +
      '<dt>Jam</dt><dd>' + (flow.jamFactor == null ? '?' : flow.jamFactor.toFixed(1)) +
      ' / 10</dd></dl></div>');
  }

  /// What a click shows: the nearest incident within about 16 pixels, else the flow there.
  async function inspect(latlng) {
    const radius = clickRadius(latlng);
    const where = coordinate(latlng.lat) + ',' + coordinate(latlng.lng);
    try {
      const body = await getJSON('/v7/incidents?in=circle:' + where + ';r=' + radius +
        '&sort=distance&from=' + where + '&limit=1&lang=' + encodeURIComponent(state.language));
      const first = (body.results || [])[0];
      if (first && state.showIncidents) {
        return await showIncident(first.incidentDetails.originalId, latlng);
      }
      await showFlow(latlng, radius);
    } catch (error) {
      openPopup(latlng, '<div class="incident-popup"><p>' + escapeHTML(error.message) + '</p></div>');
    }
    return null;
  }

  map.on('click', (event) => { inspect(event.latlng); });

  // MARK: Routes on the live traffic (GET /v8/routes)

  const routeLayer = L.layerGroup().addTo(map);

  /// The colours of the flow tiles: green, amber, red, black (blocked).
  function jamColour(jam) {
    if (jam >= 10) return '#000000';
    if (jam >= 8) return '#e3161c';
    if (jam >= 4) return '#ffb400';
    return '#1ea94b';
  }

  /// The points of a HERE flexible polyline (a third dimension is read and left out).
  function decodeFlexiblePolyline(text) {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    let index = 0;
    function unsigned() {
      let result = 0, shift = 0, value;
      do {
        value = alphabet.indexOf(text[index++]);
        if (value < 0) throw new Error('bad polyline');
        result += (value & 0x1f) * Math.pow(2, shift);
        shift += 5;
      } while (value & 0x20);
      return result;
    }
    function signed() {
      const value = unsigned();
      return value % 2 ? -(value + 1) / 2 : value / 2;
    }
    unsigned();  // the format version
    const header = unsigned();
    const scale = Math.pow(10, header & 15);
    const hasThird = ((header >> 4) & 7) !== 0;
    const points = [];
    let lat = 0, lng = 0;
    while (index < text.length) {
      lat += signed();
      lng += signed();
      if (hasThird) signed();
      points.push([lat / scale, lng / scale]);
    }
    return points;
  }

  /// The fastest route between the chosen points, its spans coloured by jam factor.
  async function showRoute() {
    const from = state.routeFrom, to = state.routeTo;
    if (!from || !to) {
      updateStatus(from ? 'route from here: now choose where to' : 'route to here: now choose where from');
      return null;
    }
    const place = (p) => coordinate(p.lat) + ',' + coordinate(p.lng);
    try {
      const body = await getJSON('/v8/routes?transportMode=car&origin=' + place(from) +
        '&destination=' + place(to) + '&return=summary,polyline,incidents,actions,instructions' +
        '&lang=' + encodeURIComponent(state.language) +
        '&spans=length,dynamicSpeedInfo');
      routeLayer.clearLayers();
      const section = body.routes[0].sections[0];
      const points = decodeFlexiblePolyline(section.polyline);
      const spans = section.spans || [];
      spans.forEach((span, k) => {
        const end = k + 1 < spans.length ? spans[k + 1].offset : points.length - 1;
        const line = points.slice(span.offset, end + 1);
        if (line.length < 2) return;
        L.polyline(line, {
          color: jamColour(span.dynamicSpeedInfo ? span.dynamicSpeedInfo.jamFactor : 0),
          weight: 8, opacity: 0.9, className: 'route-span',
        }).addTo(routeLayer);
      });
      // The directions in the panel, in the map's language; a marker at each maneuver
      // between departure and arrival, its instruction on hover.
      const directions = document.getElementById('directions');
      directions.replaceChildren(...(section.actions || []).map((action) => {
        const item = document.createElement('li');
        item.textContent = action.instruction || action.action;
        return item;
      }));
      (section.actions || []).forEach((action) => {
        if (action.action === 'depart' || action.action === 'arrive') return;
        L.circleMarker(points[Math.min(action.offset, points.length - 1)], {
          radius: 5, color: '#1f3a93', weight: 2, fillColor: '#ffffff', fillOpacity: 1,
          className: 'route-maneuver',
        }).bindTooltip(action.instruction || action.action).addTo(routeLayer);
      });
      const summary = section.summary;
      const delay = summary.duration - summary.baseDuration;
      state.routeSummary = (summary.length / 1000).toFixed(1) + ' km, ' +
        Math.max(1, Math.round(summary.duration / 60)) + ' min' +
        (delay >= 60 ? ' (' + Math.round(delay / 60) + ' min delay)' : '') +
        ((section.incidents || []).length ? ', ' + section.incidents.length + ' incident(s)' : '');
      L.marker(points[points.length - 1]).bindTooltip(state.routeSummary, { permanent: true })
        .addTo(routeLayer);
      updateStatus('route ' + state.routeSummary);
      return body;
    } catch (error) {
      routeLayer.clearLayers();
      document.getElementById('directions').replaceChildren();
      state.routeSummary = null;
      updateStatus('route: ' + error.message);
      return null;
    }
  }

  // MARK: Search around here

  async function searchAround() {
    const list = document.getElementById('results');
    const center = map.getCenter();
    const bounds = map.getBounds();
    const radius = Math.max(100, Math.min(50000, Math.round(map.distance(center, bounds.getNorthEast()))));
    const where = coordinate(center.lat) + ',' + coordinate(center.lng);
    list.textContent = '';
    try {
      const body = await getJSON('/v7/incidents?in=circle:' + where + ';r=' + radius +
        '&sort=distance&from=' + where + '&limit=20&lang=' + encodeURIComponent(state.language));
      const results = body.results || [];
      if (!results.length) {
        list.innerHTML = '<li class="empty">No incidents within ' + formatDistance(radius) + '.</li>';
      }
      for (const result of results) {
        const details = result.incidentDetails || {};
        const item = document.createElement('li');
        item.innerHTML = '<strong>' + escapeHTML(typeName(details)) +
          '</strong> <span class="distance">' + formatDistance(distanceTo(result, center)) +
          '</span><br>' + escapeHTML(text(details.description));
        item.addEventListener('click', () => {
          const lines = shapeLines(result);
          if (!lines.length) return;
          const target = L.latLng(lines[0][Math.floor(lines[0].length / 2)]);
          map.setView(target, Math.max(map.getZoom(), 15));
          showIncident(details.originalId, target);
        });
        list.appendChild(item);
      }
    } catch (error) {
      list.innerHTML = '<li class="empty">' + escapeHTML(error.message) + '</li>';
    }
  }

  // MARK: Live refresh

  let pending = null;

  function onChange() {
    state.changes += 1;
    if (pending) return;
    pending = setTimeout(() => { pending = null; refreshTraffic(); }, 1000);
  }

  /// Watches the incidents of the view grown by half on each side; a new subscription
  /// only when the view leaves the watched box.
  function openStream(force) {
    const view = map.getBounds();
    if (!force && state.stream && state.streamBounds && state.streamBounds.contains(view)) return;
    if (state.stream) state.stream.close();
    const watched = view.pad(0.5);
    let west = watched.getWest(), east = watched.getEast();
    if (east - west >= 360) { west = -180; east = 180; }
    west = ((west + 540) % 360) - 180;
    east = ((east + 540) % 360) - 180;
    if (east === -180) east = 180;
    const south = Math.max(-90, watched.getSouth()), north = Math.min(90, watched.getNorth());
    state.streamBounds = watched;
    const stream = new EventSource(withKey('/v7/incidents/stream?in=bbox:' +
      [west, south, east, north].map(coordinate).join(',') +
      '&lang=' + encodeURIComponent(state.language)));
    for (const kind of ['added', 'updated', 'removed']) stream.addEventListener(kind, onChange);
    const status = document.getElementById('status');
    stream.onopen = () => { status.className = 'live'; };
    stream.onerror = () => { status.className = 'offline'; };
    state.stream = stream;
  }

  map.on('moveend', () => openStream(false));
  setInterval(refreshTraffic, REFRESH_MS);

  // MARK: Start

  async function start() {
    try {
      WORDS = await getJSON('/web/words.json');
    } catch (error) {
      updateStatus(error.message);
    }
    try {
      state.info = await getJSON('/v1/info');
    } catch (error) {
      updateStatus(error.message);
    }
    const b = state.info && state.info.dataBounds;
    if (b) {
      const bounds = L.latLngBounds([b.south, b.west], [b.north, b.east]);
      if (bounds.getNorthEast().equals(bounds.getSouthWest())) {
        map.setView(bounds.getCenter(), 15);
      } else {
        map.fitBounds(bounds, { padding: [20, 20], maxZoom: 17 });
      }
    } else {
      map.setView([20, 0], 2);
    }
    updateStatus();
    openStream(true);
    state.ready = true;
  }

  window.trafficMap = {
    map, layers, state, inspect, searchAround, refreshTraffic, routeLayer,
    /// The route between two [lat, lng] points, drawn; resolves to the v8 answer.
    route(from, to) {
      state.routeFrom = L.latLng(from);
      state.routeTo = L.latLng(to);
      return showRoute();
    },
    /// Whether every visible layer has loaded its tiles.
    tilesLoaded() {
      return state.ready && Object.keys(layers).every((name) =>
        !map.hasLayer(layers[name]) || state.loaded[name]);
    },
  };
  start();
})();
