"""pytorch/examples ``word_language_model`` in small: the same model (embedding, dropout,
a two-layer LSTM with dropout, a linear decoder, log-softmax; the example's uniform
initialisation), its corpus tokenizer and batching, truncated backpropagation through
time with detached hidden states, ``clip_grad_norm_``, hand-written SGD with learning-rate
annealing, evaluation, and saving and loading the whole model with ``safe_globals``, on
a small generated text; prints the loss of every batch."""

import importlib
import math
import os
import random
import tempfile

torch = importlib.import_module(os.environ.get("TORCHLIKE", "torch"))
nn = torch.nn
F = torch.nn.functional
serialization = importlib.import_module(torch.__name__ + ".serialization")

EMSIZE, NHID, NLAYERS, DROPOUT = 16, 16, 2, 0.2
BATCH_SIZE, EVAL_BATCH_SIZE, BPTT, CLIP = 4, 2, 6, 0.25


class RNNModel(nn.Module):
    def __init__(self, ntoken, ninp, nhid, nlayers, dropout=0.5):
        super().__init__()
        self.ntoken = ntoken
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        self.init_weights()
        self.nhid = nhid
        self.nlayers = nlayers

    def init_weights(self):
        initrange = 0.1
        nn.init.uniform_(self.encoder.weight, -initrange, initrange)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -initrange, initrange)

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output).view(-1, self.ntoken)
        return F.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (
            weight.new_zeros(self.nlayers, bsz, self.nhid),
            weight.new_zeros(self.nlayers, bsz, self.nhid),
        )


def text(lines, seed):
    """Lines of words drawn from a small vocabulary."""
    words = "the a cat dog sat on mat ran to and of in it was big small red".split()
    rng = random.Random(seed)
    return [" ".join(rng.choice(words) for _ in range(rng.randint(3, 9))) for _ in range(lines)]


class Corpus:
    """Word ids of the train, validation and test texts, ``<eos>`` ending each line."""

    def __init__(self):
        self.word2idx = {}
        self.train = self.tokenize(text(40, 0))
        self.valid = self.tokenize(text(10, 1))
        self.test = self.tokenize(text(10, 2))

    def tokenize(self, lines):
        ids = []
        for line in lines:
            for word in line.split() + ["<eos>"]:
                ids.append(self.word2idx.setdefault(word, len(self.word2idx)))
        return torch.tensor(ids).type(torch.int64)


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    return data.view(bsz, -1).t().contiguous()


def get_batch(source, i):
    seq_len = min(BPTT, len(source) - 1 - i)
    return source[i : i + seq_len], source[i + 1 : i + 1 + seq_len].view(-1)


def repackage_hidden(h):
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


def evaluate(data_source):
    model.eval()
    total_loss = 0.0
    hidden = model.init_hidden(EVAL_BATCH_SIZE)
    with torch.no_grad():
        for i in range(0, data_source.size(0) - 1, BPTT):
            data, targets = get_batch(data_source, i)
            output, hidden = model(data, hidden)
            hidden = repackage_hidden(hidden)
            total_loss += len(data) * criterion(output, targets).item()
    return total_loss / (len(data_source) - 1)


def train(epoch):
    model.train()
    hidden = model.init_hidden(BATCH_SIZE)
    for batch, i in enumerate(range(0, train_data.size(0) - 1, BPTT)):
        data, targets = get_batch(train_data, i)
        model.zero_grad()
        hidden = repackage_hidden(hidden)
        output, hidden = model(data, hidden)
        loss = criterion(output, targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), CLIP)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-lr)
        print(f"epoch {epoch} batch {batch} lr {lr:.4g} loss {loss.item():.6g}")


torch.manual_seed(1111)
corpus = Corpus()
train_data = batchify(corpus.train, BATCH_SIZE)
val_data = batchify(corpus.valid, EVAL_BATCH_SIZE)
test_data = batchify(corpus.test, EVAL_BATCH_SIZE)
model = RNNModel(len(corpus.word2idx), EMSIZE, NHID, NLAYERS, DROPOUT)
criterion = nn.NLLLoss()

lr = 20.0
best_val_loss = None
with tempfile.TemporaryDirectory() as folder:
    path = os.path.join(folder, "model.pt")
    for epoch in range(1, 3):
        train(epoch)
        val_loss = evaluate(val_data)
        print(f"epoch {epoch} valid loss {val_loss:.6g} ppl {math.exp(val_loss):.6g}")
        if not best_val_loss or val_loss < best_val_loss:
            with open(path, "wb") as f:
                torch.save(model, f)
            best_val_loss = val_loss
        else:
            lr /= 4.0
    safe = [
        RNNModel,
        torch.nn.modules.dropout.Dropout,
        torch.nn.modules.linear.Linear,
        torch.nn.modules.rnn.LSTM,
        torch.nn.modules.sparse.Embedding,
    ]
    with open(path, "rb") as f, serialization.safe_globals(safe):
        model = torch.load(f)
    model.rnn.flatten_parameters()
test_loss = evaluate(test_data)
print(f"test loss {test_loss:.6g} ppl {math.exp(test_loss):.6g}")
