<?php

namespace App\Net;

trait Logs
{
    public function log(string $line): void
    {
        echo $line;
    }
}

class RetryingTransport extends Transport
{
    use Logs;

    public function send(string $data): int
    {
        $this->log($data);
        return parent::send($data);
    }
}
