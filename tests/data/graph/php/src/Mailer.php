<?php

namespace App;

use App\Net\Transport;
use App\Net\RetryingTransport as Retrying;

class Mailer
{
    private Transport $transport;

    public function __construct()
    {
        $this->transport = new Transport('smtp');
    }

    public function send(string $msg): int
    {
        return $this->transport->send($msg);
    }
}

function run(Transport $link): void
{
    $m = new Mailer();
    $m->send('hi');
    $r = new Retrying('backup');
    $r->send('again');
    $link->write('x');
    $d = new \DateTime();
    $d->format('Y');
}

function make(): Transport
{
    return new Transport('smtp');
}

function useMake(): int
{
    return make()->send('x');
}
