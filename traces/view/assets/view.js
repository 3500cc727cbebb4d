// acpsim view: draws the trace model (the JSON in #model, prepared by
// package view) as a sequence diagram. Go decides what is shown and how each
// event is attributed; this script only lays it out, so it stays small. The
// data- attributes it sets are the page's contract with its tests, which read
// the DOM after this script ran.
(function () {
  'use strict';
  var M = JSON.parse(document.getElementById('model').textContent);
  // draw lays the whole page out for the diagram's width; a resize draws
  // it again (the lanes share the new width), keeping the scroll position.
  function draw(first) {
    var NS = 'http://www.w3.org/2000/svg';
    var ROW = 18, ANOMW = 30, COL = 15;
    // The seq column ends at SEQW, the time column at TIMEW, each as wide as
    // its longest text (about 7 px a digit at 10 px), so a long seq never runs
    // into a long time.
    var seqLen = 1, timeLen = 4;
    M.rows.forEach(function (r) {
      if (r.cut) return;
      seqLen = Math.max(seqLen, String(r.seq).length);
      timeLen = Math.max(timeLen, r.time.length);
    });
    var SEQW = 14 + 7 * seqLen, TIMEW = SEQW + 12 + 7 * timeLen;
    // Lanes share the width the side panel leaves, down to LANE_MIN apart
    // (narrower, the diagram scrolls sideways); RIGHT is kept right of the
    // last lane for the labels that lane flips to its left.
    var LANE_MAX = 104, LANE_MIN = 52, RIGHT = 24;

    function svg(name, attrs, parent) {
      var e = document.createElementNS(NS, name);
      for (var k in attrs) e.setAttribute(k, attrs[k]);
      if (parent) parent.appendChild(e);
      return e;
    }
    function html(tag, cls, text, parent) {
      var e = document.createElement(tag);
      if (cls) e.className = cls;
      if (text != null) e.textContent = text; // text only, never markup: frames are untrusted
      if (parent) parent.appendChild(e);
      return e;
    }
    function text(parent, x, y, s, cls, anchor) {
      var t = svg('text', { x: x, y: y + 4, 'class': cls || 'lbl' }, parent);
      if (anchor) t.setAttribute('text-anchor', anchor);
      t.textContent = s;
      return t;
    }
    function short(s) { return s.length > 9 ? s.slice(0, 8) + '…' : s; }
    // keyPrefix cuts a key as the arrows' labels do (12 characters, not
    // UTF-16 units, so an emoji is never split).
    function keyPrefix(k) { var c = Array.from(k); return c.length > 12 ? c.slice(0, 12).join('') + '…' : k; }

    // seq → row index, so a frame finds the row of its other half.
    var rowOf = {};
    M.rows.forEach(function (r, i) { if (!r.cut) rowOf[r.seq] = i; });
    var subOf = {};
    M.subs.forEach(function (s) { subOf[s.sub] = s; });

    // Each submission's life is a bar in the gutter from its first shown row
    // to the last outcome its user was told (or its last row, without one); its
    // later rows (the final transcript naming it) are dots in the same column.
    // Bars that overlap in time get separate columns.
    var bars = [], colEnd = [];
    M.subs.forEach(function (s) {
      var lo = -1, last = -1, told = -1;
      M.rows.forEach(function (r, i) {
        if (r.sub !== s.sub) return;
        if (lo < 0) lo = i;
        last = i;
        if (r.kind === 'outcome') told = i;
      });
      if (lo < 0) return;
      var hi = told >= 0 ? told : last;
      var c = 0;
      while (c < colEnd.length && colEnd[c] >= lo) c++;
      colEnd[c] = hi; // the dots after it may share a column: by then the Client is done with it
      bars.push({ s: s, lo: lo, hi: hi, col: c });
    });
    var GUT = TIMEW + ANOMW; // the gutter's left edge: time, then the anomaly column
    var GUTR = GUT + colEnd.length * COL + 14; // right of the gutter's bars
    var avail = document.getElementById('diagram-wrap').clientWidth;
    var LANE = Math.max(LANE_MIN, Math.min(LANE_MAX, (avail - GUTR - RIGHT) / Math.max(M.lanes.length - 0.5, 1)));
    var X0 = GUTR + LANE / 2;
    function lx(i) { return X0 + i * LANE; }
    function ry(i) { return 16 + i * ROW + ROW / 2; } // room above the first row for a bar's label
    var lastX = lx(Math.max(M.lanes.length - 1, 0));
    var width = Math.max(lastX + RIGHT, avail), height = ry(M.rows.length) + 10;

    // Header: run, verdict, window.
    var run = document.getElementById('run');
    run.textContent = 'seed ' + M.run.seed + ' · policy ' + M.run.policy + ' · agent ' + M.run.agent +
      ' · link ' + (M.run.link || 'stdio') + ' · ' + M.shown + ' of ' + M.total + ' events · rerun: ';
    html('code', '', M.run.command, run);
    var verdict = document.getElementById('verdict');
    verdict.textContent = M.verdict;
    verdict.className = M.ok ? 'pass' : 'fail';
    document.getElementById('window-note').textContent = M.window;

    // Lane heads stick to the top of the scrolling diagram.
    var heads = document.getElementById('lane-heads');
    heads.textContent = '';
    heads.style.width = width + 'px';
    html('div', 'seq', 'seq', heads).style.width = SEQW - 8 + 'px';
    html('div', 'time', 'time', heads).style.width = TIMEW - 6 + 'px';
    html('div', 'bars', 'submissions', heads).style.left = GUT + 'px';
    // Narrow lanes alternate their heads between two rows, so long names
    // (observer:a1#5) do not overlap.
    var stagger = LANE < 96;
    M.lanes.forEach(function (l, i) {
      var d = html('div', 'k-' + l.kind + (stagger && i % 2 ? ' low' : ''), l.name, heads);
      d.style.left = lx(i) + 'px';
      if (l.kind === 'link') d.style.zIndex = 0; // a process or Client's name wins an overlap
      if (i === M.lanes.length - 1 && i > 0) d.classList.add('last');
      d.setAttribute('data-lane', l.name);
    });

    var root = document.getElementById('diagram');
    root.textContent = '';
    root.setAttribute('width', width);
    root.setAttribute('height', height);
    root.setAttribute('viewBox', '0 0 ' + width + ' ' + height);
    var bg = svg('g', {}, root), lanesG = svg('g', {}, root), barsG = svg('g', {}, root), evG = svg('g', {}, root);

    // Lanes: a solid line while the lane is in use (a process between its
    // start and its death, a link while it carries frames), dotted elsewhere.
    var span = M.lanes.map(function () { return [-1, -1]; });
    M.rows.forEach(function (r, i) {
      [r.lane, r.peer, r.kind === 'drop' ? r.via : -1].forEach(function (l) {
        if (l < 0) return;
        if (span[l][0] < 0) span[l][0] = i;
        span[l][1] = i;
      });
    });
    M.lanes.forEach(function (l, i) {
      svg('line', { x1: lx(i), x2: lx(i), y1: 0, y2: height, 'class': 'lane-ghost' }, lanesG);
      if (span[i][0] >= 0) {
        svg('line', { x1: lx(i), x2: lx(i), y1: ry(span[i][0]) - 6, y2: ry(span[i][1]) + 6, 'class': 'lane-line k-' + l.kind, 'data-lane': l.name }, lanesG);
      }
    });

    bars.forEach(function (b) {
      var x = GUT + b.col * COL + 4, s = b.s;
      var g = svg('g', { 'data-submission': s.sub, 'data-outcome': s.outcome }, barsG);
      if (s.key) g.setAttribute('data-key', s.key);
      var rect = svg('rect', { x: x, y: ry(b.lo) - 7, width: 8, height: ry(b.hi) - ry(b.lo) + 14, rx: 4, 'class': 'bar o-' + s.outcome }, g);
      svg('title', {}, rect).textContent = s.sub + ' "' + s.text + '" · ' + (s.key ? 'key ' + s.key : 'no key') +
        ' · ' + s.attempts + ' attempt(s) · outcome ' + s.outcome;
      text(g, x + 4, ry(b.lo) - 11, s.sub, 'bar-label', 'middle');
      // A tick per attempt (prompt request sent), so retries read as one group.
      M.rows.forEach(function (r, i) {
        if (r.sub !== s.sub) return;
        if (r.kind === 'send' && r.class === 'prompt') svg('line', { x1: x, x2: x + 8, y1: ry(i), y2: ry(i), 'class': 'tick' }, g);
        if (i > b.hi) svg('circle', { cx: x + 4, cy: ry(i), r: 3, 'class': 'bar o-' + s.outcome }, g);
      });
    });

    function head(g, x1, y1, x2, y2) {
      var a = Math.atan2(y2 - y1, x2 - x1), L = 8, W = 4;
      var p = [x2, y2, x2 - L * Math.cos(a) + W * Math.sin(a), y2 - L * Math.sin(a) - W * Math.cos(a),
        x2 - L * Math.cos(a) - W * Math.sin(a), y2 - L * Math.sin(a) + W * Math.cos(a)];
      svg('path', { d: 'M' + p[0] + ',' + p[1] + 'L' + p[2] + ',' + p[3] + 'L' + p[4] + ',' + p[5] + 'Z', 'class': 'head' }, g);
    }
    function cross(g, x, y) {
      svg('path', { d: 'M' + (x - 6) + ',' + (y - 6) + 'L' + (x + 6) + ',' + (y + 6) + 'M' + (x + 6) + ',' + (y - 6) + 'L' + (x - 6) + ',' + (y + 6), 'class': 'mark' }, g);
    }
    // A mark per event kind, at (x, y) on its lane.
    function mark(g, r, x, y) {
      switch (r.kind) {
        case 'kill': cross(g, x, y); break;
        case 'restart': svg('path', { d: 'M' + (x - 5) + ',' + (y - 6) + 'L' + (x + 6) + ',' + y + 'L' + (x - 5) + ',' + (y + 6) + 'Z', 'class': 'mark' }, g); break;
        case 'insert': svg('path', { d: 'M' + x + ',' + (y - 7) + 'L' + (x + 7) + ',' + y + 'L' + x + ',' + (y + 7) + 'L' + (x - 7) + ',' + y + 'Z', 'class': 'mark' }, g); break;
        case 'choose': svg('path', { d: 'M' + (x + 2) + ',' + (y - 7) + 'L' + (x - 4) + ',' + (y + 1) + 'L' + x + ',' + (y + 1) + 'L' + (x - 2) + ',' + (y + 7) + 'L' + (x + 4) + ',' + (y - 1) + 'L' + x + ',' + (y - 1) + 'Z', 'class': 'mark' }, g); break;
        case 'outcome': svg('rect', { x: x - 5, y: y - 5, width: 10, height: 10, 'class': 'mark' }, g); break;
        case 'connect': case 'disconnect': svg('rect', { x: x - 7, y: y - 2, width: 14, height: 4, 'class': 'mark' }, g); break;
        default: svg('circle', { cx: x, cy: y, r: 3.5, 'class': 'mark' }, g);
      }
    }

    var anomRows = M.anomalies.map(function () { return []; });
    var rowEls = [], bands = [];
    M.rows.forEach(function (r, i) {
      var y = ry(i);
      if (i % 2) svg('rect', { x: 0, y: y - ROW / 2, width: width, height: ROW, 'class': 'zebra' }, bg);
      if (r.cut) {
        var gg = svg('g', { 'class': 'gap', 'data-cut': r.cut }, evG);
        svg('rect', { x: 0, y: y - ROW / 2 + 1, width: width, height: ROW - 2 }, gg);
        text(gg, X0, y, '⋯ ' + r.cut + ' events cut (seq ' + r.cutFrom + '–' + r.cutTo + ') ⋯');
        return;
      }
      var g = svg('g', { 'class': 'ev k-' + r.kind + (r.class ? ' c-' + r.class : '') + (r.outcome ? ' o-' + r.outcome : ''), 'data-seq': r.seq, 'data-kind': r.kind }, evG);
      rowEls[i] = g;
      if (r.lane >= 0) g.setAttribute('data-lane', M.lanes[r.lane].name);
      if (r.sub) g.setAttribute('data-submission', r.sub);
      if (r.key) g.setAttribute('data-key', r.key);
      if (r.msg) g.setAttribute('data-msg', r.msg);
      if (r.fault) g.setAttribute('data-fault', r.fault);
      if (r.kind === 'kill' && !r.fault) g.classList.add('exit');
      var kinds = [];
      (r.anoms || []).forEach(function (a) {
        anomRows[a].push(i);
        if (kinds.indexOf(M.anomalies[a].kind) < 0) kinds.push(M.anomalies[a].kind);
      });
      if (kinds.length) {
        g.setAttribute('data-anomaly', kinds.join(' '));
        // Under the lanes and bars, which would be cut by it otherwise.
        bands[i] = svg('rect', { x: 0, y: y - ROW / 2, width: width, height: ROW, 'class': 'anom-band' }, bg);
      }
      text(g, SEQW - 8, y, String(r.seq), 'time-text', 'end');
      text(g, TIMEW - 6, y, r.time, 'time-text', 'end');

      var x = r.lane >= 0 ? lx(r.lane) : X0, lblX = x + 10, anchor = null;
      if (r.kind === 'send') {
        // The arrow ends where the frame arrived (its deliver row), on the
        // link lane where it was dropped, or dashed where the window cut it.
        var j = rowOf[r.pair], pr = j != null ? M.rows[j] : null, x2, y2;
        if (pr && pr.kind === 'drop') { x2 = lx(pr.lane); y2 = ry(j); }
        else if (pr) { x2 = lx(r.peer); y2 = ry(j); }
        else { x2 = r.pair ? lx(r.peer) : lx(r.via); y2 = y + ROW * 0.8; g.classList.add(r.pair ? 'cut-end' : 'lost'); }
        svg('path', { d: 'M' + x + ',' + y + 'L' + x2 + ',' + y2, 'class': 'arrow' }, g);
        if (!pr || pr.kind !== 'drop') head(g, x, y, x2, y2);
        svg('circle', { cx: x, cy: y, r: 2.5, 'class': 'dot' }, g);
        if (x2 < x) { lblX = x - 10; anchor = 'end'; }
      } else if (r.kind === 'deliver') {
        var sendCut = rowOf[r.pair] == null;
        if (sendCut && r.peer >= 0) { // its send was cut: a dashed stub from the sender
          g.classList.add('cut-end');
          var sx = lx(r.peer);
          svg('path', { d: 'M' + sx + ',' + (y - ROW * 0.8) + 'L' + x + ',' + y, 'class': 'arrow' }, g);
          head(g, sx, y - ROW * 0.8, x, y);
        }
        svg('circle', { cx: x, cy: y, r: 3, 'class': 'dot' }, g);
        // The arrow already says what arrived; a label only where the send is
        // not shown or an anomaly cites the delivery, away from the arrow when
        // there is room on that side.
        if (!sendCut && !(r.anoms || []).length) lblX = null;
        else if (r.peer >= 0 && lx(r.peer) > x && r.lane > 0) { lblX = x - 10; anchor = 'end'; }
      } else if (r.kind === 'drop') {
        if (rowOf[r.pair] == null && r.peer >= 0) { // no send shown: a stub from the sender
          svg('path', { d: 'M' + lx(r.peer) + ',' + y + 'L' + x + ',' + y, 'class': 'arrow' }, g);
        }
        cross(g, x, y);
      } else if (r.lane < 0) {
        g.classList.add('global');
        svg('line', { x1: TIMEW, x2: lastX + LANE / 2, y1: y, y2: y }, g);
        lblX = X0;
      } else {
        mark(g, r, x, y);
        // The last lane's labels go to its left: right of it the page ends.
        if (r.lane === M.lanes.length - 1 && M.lanes.length > 1) { lblX = x - 12; anchor = 'end'; }
      }
      if (kinds.length && r.lane >= 0) svg('circle', { cx: x, cy: y, r: 9, 'class': 'ring' }, g);
      if (lblX != null) text(g, r.lane < 0 ? lblX + 4 : lblX, y, r.label, 'lbl', anchor);
      var tip = r.label + (r.key ? '\nkey ' + r.key : '');
      (r.anoms || []).forEach(function (a) { tip += '\n\n' + M.anomalies[a].kind + ': ' + M.anomalies[a].explanation; });
      svg('title', {}, g).textContent = tip;
      g.addEventListener('click', function () { select(i); });
    });

    // A duplicate gets a bracket joining its insertions (one row per distinct
    // messageId: the inserts when the trace has them, else the frames naming
    // the messages), so the two copies read as one finding. Only the focused
    // anomaly's bracket and rings show: several at once would tangle.
    var brackets = M.anomalies.map(function () { return null; });
    M.anomalies.forEach(function (a, k) {
      if (a.kind !== 'duplicate') return;
      var seen = {}, pick = [];
      ['insert', null].forEach(function (only) {
        if (pick.length >= 2) return;
        seen = {}; pick = [];
        anomRows[k].forEach(function (i) {
          var r = M.rows[i];
          if (r.msg && !seen[r.msg] && (only === null || r.kind === only)) { seen[r.msg] = true; pick.push(i); }
        });
      });
      if (pick.length < 2) return;
      // In the anomaly column left of the gutter, which never scrolls away
      // sideways: a bracket with a tick at each copy, its label along it.
      var x = TIMEW + 18, y1 = ry(pick[0]), y2 = ry(pick[pick.length - 1]);
      var g = svg('g', { 'class': 'dup', 'data-anomaly': a.kind }, evG);
      brackets[k] = g;
      if (a.sub) g.setAttribute('data-submission', a.sub);
      svg('path', { d: 'M' + (x + 8) + ',' + y1 + 'H' + x + 'V' + y2 + 'H' + (x + 8), 'class': 'dup-bracket' }, g);
      pick.forEach(function (i) { svg('line', { x1: x, x2: lx(Math.max(M.rows[i].lane, 0)) - 10, y1: ry(i), y2: ry(i), 'class': 'dup-tick' }, g); });
      var t = text(g, 0, 0, (a.sub || 'one message') + ' inserted ' + pick.length + '×', 'dup-label', 'middle');
      t.setAttribute('transform', 'translate(' + (x - 8) + ',' + (y1 + y2) / 2 + ') rotate(-90)');
    });

    // Sidebar: anomalies, the selected event, submissions grouped by key.
    var details = document.getElementById('details');
    var selected = -1;
    function select(i) {
      if (selected >= 0 && rowEls[selected]) rowEls[selected].classList.remove('selected');
      selected = i;
      rowEls[i].classList.add('selected');
      var r = M.rows[i], s = r.detail;
      if (r.sub && subOf[r.sub]) s = r.sub + ' "' + subOf[r.sub].text + '" (' + subOf[r.sub].outcome + ')\n' + s;
      (r.anoms || []).forEach(function (a) { s += '\n\n' + M.anomalies[a].kind + ': ' + M.anomalies[a].explanation; });
      details.textContent = s;
    }
    function scrollToRow(i) {
      var wrap = document.getElementById('diagram-wrap');
      wrap.scrollTop = Math.max(0, ry(i) - 5 * ROW);
    }
    var list = document.getElementById('anomalies');
    list.textContent = '';
    var items = [];
    function focus(k, scroll) {
      items.forEach(function (li, j) { li.classList.toggle('focus', j === k); });
      rowEls.forEach(function (g, i) { if (g) g.classList.toggle('focus', anomRows[k].indexOf(i) >= 0); });
      bands.forEach(function (b, i) { if (b) b.classList.toggle('focus', anomRows[k].indexOf(i) >= 0); });
      brackets.forEach(function (g, j) { if (g) g.classList.toggle('focus', j === k); });
      if (scroll && anomRows[k].length) scrollToRow(anomRows[k][0]);
    }
    if (!M.anomalies.length) html('li', 'none', 'none: every property held', list);
    M.anomalies.forEach(function (a, k) {
      var li = html('li', '', null, list);
      li.setAttribute('data-anomaly', a.kind);
      if (a.sub) li.setAttribute('data-submission', a.sub);
      html('span', 'kind', a.kind + (a.sub ? ' ' + a.sub : ''), li);
      li.appendChild(document.createTextNode(': ' + a.explanation));
      html('div', 'events', 'cites events ' + a.events.join(', ') + (a.shown < a.events.length ? ' (' + (a.events.length - a.shown) + ' cut by the window)' : ''), li);
      li.addEventListener('click', function () { focus(k, true); });
      items.push(li);
    });

    var subsEl = document.getElementById('subs');
    subsEl.textContent = '';
    var groups = [], byKey = {};
    M.subs.forEach(function (s) {
      var k = s.key ? 'k' + s.key : 's' + s.sub; // keyless submissions each stand alone
      if (!byKey[k]) { byKey[k] = { key: s.key, subs: [] }; groups.push(byKey[k]); }
      byKey[k].subs.push(s);
    });
    groups.forEach(function (gr) {
      var box = html('div', 'group', null, subsEl);
      if (gr.key) box.setAttribute('data-key', gr.key);
      // A key can be hundreds of characters (emoji): its prefix, whole on hover.
      var kd = html('div', 'key', gr.key ? 'key ' + keyPrefix(gr.key) : 'no key', box);
      if (gr.key) kd.title = gr.key;
      gr.subs.forEach(function (s) {
        var d = html('div', 'sub', null, box);
        d.setAttribute('data-submission', s.sub);
        d.setAttribute('data-outcome', s.outcome);
        html('span', 'chip o-' + s.outcome, s.sub + ' ' + s.outcome, d);
        html('span', 'text', s.client + ' "' + s.text + '"', d);
        html('span', '', s.attempts + '×' + (s.copies > 1 ? ' · ' + s.copies + ' copies' : ''), d);
        if (s.anomalies.length) html('span', 'bad', s.anomalies.join(' '), d);
        d.addEventListener('click', function () {
          rowEls.forEach(function (g) { if (g) g.classList.toggle('dim', g.getAttribute('data-submission') !== s.sub); });
        });
      });
    });
    var legend = document.getElementById('legend');
    legend.textContent = '';
    // Every colour the diagram uses is named here: a swatch (a class of
    // view.css) or a symbol in its colour, then what it means.
    html('span', 'legend-note', 'outcome told to the user (colours the bars, prompt arrows and chips):', legend);
    M.legend.forEach(function (l) { html('span', 'chip ' + l.class, l.text, legend); });
    [['sw bar', '', 'bar at the left: a submission, from its first prompt to the outcome told (tick: an attempt; dot: named later)'],
      ['sw head-client', 'c1', 'Client lane'], ['sw head-agent', 'a1#1', 'Agent process lane'],
      ['sw lane-link', '', 'link lane (connection)'], ['sw arrow-other', '', 'other frame'],
      ['sw arrow-cut', '', 'other half cut by the window, or lost'],
      ['sym fault', '✕', 'kill / drop'], ['sym fault', '⚡', 'fault decision'], ['sym start', '▶', 'process start'],
      ['sym', '◆', 'insert'], ['sym', '■', 'outcome told'],
      ['sym band', '▬', 'pink row: cited by an anomaly'], ['sym anomaly', '◯', 'ring: evidence of the focused anomaly'],
      ['sym anomaly', '[', 'red bracket: the copies of a duplicate']
    ].forEach(function (p) {
      var s = html('span', '', null, legend);
      html('span', p[0], p[1], s);
      s.appendChild(document.createTextNode(' ' + p[2]));
    });

    // Open on the first anomaly: its evidence highlighted and scrolled into view.
    if (M.anomalies.length) focus(0, false);
    if (first && rowOf[M.focus] != null) scrollToRow(rowOf[M.focus]);
    document.body.setAttribute('data-ready', 'true');
  }
  draw(true);
  var wrap = document.getElementById('diagram-wrap'), drawnWidth = wrap.clientWidth, pending;
  window.addEventListener('resize', function () {
    clearTimeout(pending);
    pending = setTimeout(function () {
      if (wrap.clientWidth === drawnWidth) return;
      drawnWidth = wrap.clientWidth;
      var top = wrap.scrollTop;
      draw(false);
      wrap.scrollTop = top;
    }, 150);
  });
})();
