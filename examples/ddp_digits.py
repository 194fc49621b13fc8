"""Data-parallel training with DistributedDataParallel: the demo's CNN
(``hookgrad/demo/model.py``) learns scikit-learn's digits on several processes at once.

Each process trains a replica on its share of every epoch (``DistributedSampler``); DDP
averages the gradients over the processes during backward, so every replica takes the
same step. Start it with MPI, on one machine:

    python -m hookgrad.distributed.run -n 2 examples/ddp_digits.py --epochs 5
    mpiexec -n 2 python examples/ddp_digits.py                # the same, directly

or across machines, with a host file naming them (one ``host:slots`` a line):

    python -m hookgrad.distributed.run -n 8 --hostfile hosts.txt examples/ddp_digits.py

Set ``OMP_NUM_THREADS=1`` when there are as many processes as cores.
"""

import argparse

import hookgrad as torch
import hookgrad.distributed as dist
from hookgrad import nn
from hookgrad.demo.data import load_dataset
from hookgrad.demo.model import DigitsCNN
from hookgrad.nn.parallel import DistributedDataParallel
from hookgrad.utils.data import DataLoader, TensorDataset
from hookgrad.utils.data.distributed import DistributedSampler


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=32, help="per process")
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    dist.init_process_group("mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(args.seed)
    data = load_dataset(None, seed=args.seed)
    train = TensorDataset(torch.tensor(data.x_train), torch.tensor(data.y_train))
    sampler = DistributedSampler(train, seed=args.seed)
    loader = DataLoader(train, batch_size=args.batch_size, sampler=sampler)

    model = DistributedDataParallel(DigitsCNN(data.image_shape, data.classes))
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        model.train()
        total = torch.zeros(2, dtype=torch.float64)  # summed loss, samples
        for x, y in loader:
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            total += torch.tensor([loss.item() * len(x), len(x)], dtype=torch.float64)
        dist.all_reduce(total)
        model.eval()
        with torch.no_grad():
            scores = model(torch.tensor(data.x_test))
        accuracy = float((scores.argmax(1) == torch.tensor(data.y_test)).float().mean())
        if rank == 0:
            print(
                f"epoch {epoch + 1}: loss {float(total[0] / total[1]):.4f}, "
                f"held-out accuracy {accuracy:.1%} ({world} processes)",
                flush=True,
            )
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
