<?php

namespace App\Handler;

class StreamHandler implements HandlerInterface, ResettableInterface
{
    public function handleRecord(array $record): bool
    {
        return true;
    }

    public function resetAll(): void
    {
    }
}

class NullHandler implements HandlerInterface
{
    public function handleRecord(array $record): bool
    {
        return false;
    }
}

class Pool
{
    public function resetAll(): void
    {
    }
}
