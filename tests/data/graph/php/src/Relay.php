<?php

namespace App;

use Psr\Http\Message\StreamInterface;
use App\Net\Transport;

// a parameter typed by an interface of a vendor package (psr/http-message): its
// methods are never the repository's, even where one class of it has that name
final class Relay
{
    private $stream;

    public function __construct(StreamInterface $stream)
    {
        $this->stream = $stream;
    }

    public function pipe(StreamInterface $body, Transport $to): void
    {
        $body->rewind();
        $this->stream->rewind();
        $to->write('x');
    }
}

class Buffer
{
    public function rewind(): void
    {
    }
}
