// Deterministic benchmark graphs for the layout benchmark, shaped like the networks users open:
//   resnet: bottleneck blocks (Conv/Relu chains with short residual edges), four stages;
//   bert:   encoder layers with Q/K/V branches, decomposed LayerNorm and Gelu, and one attention
//           mask read by every layer (the long edges that make dagre slow);
//   llm:    decoder layers with RMSNorm, rotary embeddings (cos/sin tables read by every layer),
//           a causal mask read by every layer, KV-cache inputs and outputs per layer, SwiGLU MLPs.
// Node sizes follow the labels as the model adapter estimates them (core/layout/model_graph.cc);
// groups are the name scopes an exporter would write. No randomness: the same size gives the same
// graph, node for node.
//   node bench/layout_graphs.mjs FAMILY NODES > graph.json

const OP_HEIGHT = 28, VALUE_HEIGHT = 24;

export function labelWidth(label) {
  const characters = [...label].length;
  return Math.max(40, 20 + 7 * Math.min(characters, 48));
}

class GraphBuilder {
  constructor(name) {
    this.name = name;
    this.labels = [];
    this.kinds = [];
    this.groups = [];
    this.from = [];
    this.to = [];
    this.groupNames = [];
    this.groupParent = [];
    this.groupIds = new Map();
  }

  get size() {
    return this.labels.length;
  }

  group(path) {
    if (!path) return -1;
    if (this.groupIds.has(path)) return this.groupIds.get(path);
    const slash = path.lastIndexOf('/');
    const parent = slash < 0 ? -1 : this.group(path.slice(0, slash));
    const id = this.groupNames.length;
    this.groupNames.push(path);
    this.groupParent.push(parent);
    this.groupIds.set(path, id);
    return id;
  }

  add(kind, label, scope, inputs) {
    const id = this.labels.length;
    this.labels.push(label);
    this.kinds.push(kind);
    this.groups.push(this.group(scope));
    for (const input of inputs) {
      this.from.push(input);
      this.to.push(id);
    }
    return id;
  }

  op(label, scope, ...inputs) {
    return this.add('op', label, scope, inputs);
  }

  // Graph inputs and outputs sit in the innermost scope around all their readers (writer) when it
  // is nested, as the model adapter places them; `scope` says which that is.
  input(name, scope = null) {
    return this.add('input', name, scope, []);
  }

  output(name, producer, scope = null) {
    return this.add('output', name, scope, [producer]);
  }

  // Inputs first and outputs last, as the model adapter lists them.
  finish() {
    const rank = { input: 0, op: 1, output: 2 };
    const order = this.labels.map((_, i) => i).sort((a, b) => rank[this.kinds[a]] - rank[this.kinds[b]] || a - b);
    const position = new Int32Array(order.length);
    order.forEach((old, i) => { position[old] = i; });
    const labels = order.map((i) => this.labels[i]);
    return {
      name: this.name,
      labels,
      width: labels.map(labelWidth),
      height: order.map((i) => (this.kinds[i] === 'op' ? OP_HEIGHT : VALUE_HEIGHT)),
      from: this.from.map((v) => position[v]),
      to: this.to.map((v) => position[v]),
      nodeGroup: order.map((i) => this.groups[i]),
      groupNames: this.groupNames,
      groupParent: this.groupParent,
      groupWidth: this.groupNames.map((n) => labelWidth(n.slice(n.lastIndexOf('/') + 1)) + 24),
      groupHeight: this.groupNames.map(() => 40),
    };
  }
}

// Identity nodes on the main chain until the graph has exactly `nodes` nodes with its tail.
function pad(b, x, nodes, tail) {
  while (b.size + tail < nodes) x = b.op('Identity', null, x);
  return x;
}

function layerNorm(b, scope, x) {
  const mean = b.op('ReduceMean', scope, x);
  const centred = b.op('Sub', scope, x, mean);
  const variance = b.op('ReduceMean', scope, b.op('Pow', scope, centred));
  const std = b.op('Sqrt', scope, b.op('Add', scope, variance));
  return b.op('Add', scope, b.op('Mul', scope, b.op('Div', scope, centred, std)));
}

function rmsNorm(b, scope, x) {
  const rms = b.op('Sqrt', scope, b.op('Add', scope, b.op('ReduceMean', scope, b.op('Pow', scope, x))));
  return b.op('Mul', scope, b.op('Mul', scope, x, b.op('Div', scope, rms)));
}

export function resnet(nodes) {
  const b = new GraphBuilder(`resnet_${nodes}`);
  const tail = 4;
  let x = b.op('MaxPool', 'maxpool', b.op('Relu', 'relu', b.op('Conv', 'conv1', b.input('input'))));
  // Seven nodes a block, eight in the first block of a stage; stages in ResNet-50's 3:4:6:3 ratio.
  const blocks = Math.max(4, Math.floor((nodes - b.size - tail - 4) / 7));
  const perStage = [3, 4, 6, 3].map((share) => Math.max(1, Math.floor((blocks * share) / 16)));
  perStage[2] += blocks - perStage.reduce((a, c) => a + c, 0);
  for (let s = 0; s < 4; s++) {
    for (let k = 0; k < perStage[s]; k++) {
      const scope = `layer${s + 1}/layer${s + 1}.${k}`;
      if (b.size + (k === 0 ? 8 : 7) + tail > nodes) break;
      const c3 = b.op('Conv', `${scope}/conv3`, b.op('Relu', `${scope}/relu`, b.op('Conv', `${scope}/conv2`,
        b.op('Relu', `${scope}/relu`, b.op('Conv', `${scope}/conv1`, x)))));
      const shortcut = k === 0 ? b.op('Conv', `${scope}/downsample`, x) : x;
      x = b.op('Relu', `${scope}/relu`, b.op('Add', scope, c3, shortcut));
    }
  }
  x = pad(b, x, nodes, tail);
  b.output('output', b.op('Gemm', 'fc', b.op('Flatten', null, b.op('GlobalAveragePool', 'avgpool', x))));
  return b.finish();
}

export function bert(nodes) {
  const b = new GraphBuilder(`bert_${nodes}`);
  const e = 'embeddings';
  const ids = b.input('input_ids', `${e}/word_embeddings`), types = b.input('token_type_ids', `${e}/token_type_embeddings`);
  const maskIn = b.input('attention_mask');
  let h = layerNorm(b, `${e}/LayerNorm`, b.op('Add', e, b.op('Add', e, b.op('Gather', `${e}/word_embeddings`, ids),
    b.op('Gather', `${e}/token_type_embeddings`, types))));
  const mask = b.op('Mul', null, b.op('Sub', null, b.op('Cast', null, b.op('Unsqueeze', null, b.op('Unsqueeze', null, maskIn)))));
  const tail = 5, perLayer = 50;
  for (let i = 0; b.size + perLayer + tail <= nodes; i++) {
    const s = `encoder/layer.${i}/attention/self`;
    const head = (name) => b.op('Transpose', s, b.op('Reshape', s, b.op('Add', `${s}/${name}`, b.op('MatMul', `${s}/${name}`, h))));
    const q = head('query'), k = head('key'), v = head('value');
    const scores = b.op('Add', s, b.op('Div', s, b.op('MatMul', s, q, k)), mask);
    const context = b.op('Reshape', s, b.op('Transpose', s, b.op('MatMul', s, b.op('Softmax', s, scores), v)));
    const o = `encoder/layer.${i}/attention/output`;
    const attention = layerNorm(b, `${o}/LayerNorm`, b.op('Add', o, b.op('Add', `${o}/dense`, b.op('MatMul', `${o}/dense`, context)), h));
    const m = `encoder/layer.${i}/intermediate`;
    const pre = b.op('Add', `${m}/dense`, b.op('MatMul', `${m}/dense`, attention));
    const gelu = b.op('Mul', `${m}/intermediate_act_fn`, b.op('Mul', `${m}/intermediate_act_fn`, pre,
      b.op('Add', `${m}/intermediate_act_fn`, b.op('Erf', `${m}/intermediate_act_fn`, b.op('Div', `${m}/intermediate_act_fn`, pre)))));
    const out = `encoder/layer.${i}/output`;
    h = layerNorm(b, `${out}/LayerNorm`, b.op('Add', out, b.op('Add', `${out}/dense`, b.op('MatMul', `${out}/dense`, gelu)), attention));
  }
  h = pad(b, h, nodes, tail);
  b.output('last_hidden_state', h);
  b.output('pooler_output', b.op('Tanh', 'pooler/activation', b.op('Gemm', 'pooler/dense', b.op('Gather', 'pooler', h))),
    'pooler/activation');
  return b.finish();
}

export function llm(nodes) {
  const b = new GraphBuilder(`llm_${nodes}`);
  const perLayer = 60, tail = 9;
  const fixed = 3 + 7 + 6 + 1;
  const layers = Math.max(1, Math.floor((nodes - fixed - tail) / perLayer));
  const r = 'model/rotary_emb';
  const ids = b.input('input_ids', 'model/embed_tokens'), maskIn = b.input('attention_mask');
  const positions = b.input('position_ids', r);
  const freqs = b.op('Concat', r, b.op('Transpose', r, b.op('MatMul', r, b.op('Cast', r, b.op('Unsqueeze', r, positions)))));
  const cos = b.op('Cos', r, freqs), sin = b.op('Sin', r, freqs);
  const mask = b.op('Add', 'model', b.op('Mul', 'model', b.op('Sub', 'model', b.op('Cast', 'model',
    b.op('Unsqueeze', 'model', b.op('Unsqueeze', 'model', maskIn))))));
  let h = b.op('Gather', 'model/embed_tokens', ids);
  const rotate = (s, x) => b.op('Add', s, b.op('Mul', s, x, cos),
    b.op('Mul', s, b.op('Concat', s, b.op('Neg', s, b.op('Slice', s, x)), b.op('Slice', s, x)), sin));
  for (let i = 0; i < layers && b.size + perLayer + tail <= nodes; i++) {
    const l = `model/layers.${i}`, a = `${l}/self_attn`;
    const normed = rmsNorm(b, `${l}/input_layernorm`, h);
    const project = (name) => b.op('Transpose', a, b.op('Reshape', a, b.op('MatMul', `${a}/${name}`, normed)));
    const q = rotate(a, project('q_proj')), k = rotate(a, project('k_proj')), v = project('v_proj');
    const keys = b.op('Concat', a, b.input(`past_key_values.${i}.key`, a), k);
    const values = b.op('Concat', a, b.input(`past_key_values.${i}.value`, a), v);
    b.output(`present.${i}.key`, keys, a);
    b.output(`present.${i}.value`, values, a);
    const scores = b.op('Add', a, b.op('Div', a, b.op('MatMul', a, q, b.op('Transpose', a, keys))), mask);
    const context = b.op('Reshape', a, b.op('Transpose', a, b.op('MatMul', a, b.op('Softmax', a, scores), values)));
    h = b.op('Add', l, h, b.op('MatMul', `${a}/o_proj`, context));
    const m = `${l}/mlp`;
    const x = rmsNorm(b, `${l}/post_attention_layernorm`, h);
    const gate = b.op('MatMul', `${m}/gate_proj`, x);
    const act = b.op('Mul', `${m}/act_fn`, gate, b.op('Sigmoid', `${m}/act_fn`, gate));
    h = b.op('Add', l, h, b.op('MatMul', `${m}/down_proj`, b.op('Mul', m, act, b.op('MatMul', `${m}/up_proj`, x))));
  }
  h = pad(b, h, nodes, tail);
  b.output('logits', b.op('MatMul', 'lm_head', rmsNorm(b, 'model/norm', h)));
  return b.finish();
}

export const families = { resnet, bert, llm };

if (import.meta.url === `file://${process.argv[1]}`) {
  const [family, nodes] = process.argv.slice(2);
  process.stdout.write(JSON.stringify(families[family](Number(nodes))));
}
