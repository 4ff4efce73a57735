"""A stand-in for the TensorFlow 1 summary API that pytorch-tutorial's tensorboard logger writes
through (tf.summary.FileWriter, tf.Summary, tf.HistogramProto). That API is gone from TensorFlow 2, so
neither side could run the script with a real install; this keeps the summaries in memory, the same
for the PyTorch run and the MindSpore run, and lets the training loop itself be compared."""


class _Record:
    def __init__(self, **fields):
        self.__dict__.update(fields)


class Summary(_Record):
    Value = _Record
    Image = _Record


class HistogramProto:
    def __init__(self):
        self.bucket_limit, self.bucket = [], []


class _FileWriter:
    def __init__(self, log_dir):
        self.log_dir, self.summaries = log_dir, []

    def add_summary(self, summary, step):
        self.summaries.append((step, summary))

    def flush(self):
        pass


class summary:  # noqa: N801 - the module attribute tf.summary
    FileWriter = _FileWriter
